#!/usr/bin/env node
// Runs the CLI: the one-file bundle when built (dist/hcs-drive.mjs, the same file the server hands out; it starts in
// about half the time of the separate modules, which matters to scripts that run `drive` once per file), else the
// separately built modules, else the TypeScript sources directly (Node >= 22.18 strips types).
import { existsSync } from 'node:fs';

const candidates = ['../dist/hcs-drive.mjs', '../dist/index.js', '../src/index.ts'].map((p) => new URL(p, import.meta.url));
await import((candidates.find((u) => existsSync(u)) ?? candidates[2]).href);
