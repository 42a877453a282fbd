// Prepends the do-not-edit banner to generated files (one file, or every .ts file under --dir).
import { readFileSync, writeFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const BANNER = '/* eslint-disable */\n// GENERATED FILE - DO NOT EDIT. Source: openapi/src (run `npm run gen`).\n';

function stamp(file: string): void {
  const text = readFileSync(file, 'utf8');
  if (text.startsWith(BANNER)) return;
  const body = text.replace(/^\/\*\s*eslint-disable\s*\*\/\n/, '');
  writeFileSync(file, BANNER + body);
}

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? walk(p) : /\.tsx?$/.test(name) ? [p] : [];
  });
}

const args = process.argv.slice(2);
const files = args[0] === '--dir' ? walk(args[1] ?? '.') : args;
for (const f of files) stamp(f);
