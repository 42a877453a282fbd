#!/usr/bin/env node
// Runs the built CLI when present, else the TypeScript sources directly (Node >= 22.18 strips types).
import { existsSync } from 'node:fs';

const built = new URL('../dist/index.js', import.meta.url);
await import(existsSync(built) ? built.href : new URL('../src/index.ts', import.meta.url).href);
