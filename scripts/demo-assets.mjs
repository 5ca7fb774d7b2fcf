// Copies what the demo page loads into www/assets/ (git-ignored): the built package
// (pkg/ must be built: scripts/build.sh), the shared transcripts and a manifest.
//
//   node scripts/demo-assets.mjs
//   CONVERSATIONS_DIR=/path/to/conversations node scripts/demo-assets.mjs
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const PKG_FILES = ['web.mjs', 'context_compactor.js', 'context_compactor_bg.wasm', 'snippets'];

/** The sample selected on first load: the longest single-task tool loop. */
export const DEFAULT_SAMPLE = 'tools.marshmallow-1867.function_calling__install-1.anthropic';

function describe(file) {
  const [kind, ...rest] = file.replace(/\.(anthropic|openai)\.json$/, '').split('.');
  return `${rest.join('.')} (${kind === 'tools' ? 'tool calls' : 'text only'})`;
}

/** Writes www/assets/ and returns the manifest. */
export function copyDemoAssets({
  repo = REPO,
  conversationsDir = process.env.CONVERSATIONS_DIR || join(repo, '..', 'shared', 'conversations'),
} = {}) {
  const pkg = join(repo, 'pkg');
  const assets = join(repo, 'www', 'assets');
  for (const f of PKG_FILES) {
    if (!existsSync(join(pkg, f))) throw new Error(`pkg/${f} is missing: run scripts/build.sh first`);
  }
  if (!existsSync(conversationsDir)) throw new Error(`no transcripts at ${conversationsDir}`);

  rmSync(assets, { recursive: true, force: true });
  mkdirSync(join(assets, 'pkg'), { recursive: true });
  mkdirSync(join(assets, 'conversations'), { recursive: true });
  for (const f of PKG_FILES) cpSync(join(pkg, f), join(assets, 'pkg', f), { recursive: true });

  const files = readdirSync(conversationsDir).filter((f) => f.endsWith('.json')).sort();
  const samples = [];
  for (const file of files) {
    cpSync(join(conversationsDir, file), join(assets, 'conversations', file));
    samples.push({
      id: file.replace(/\.json$/, ''),
      title: describe(file),
      file: `conversations/${file}`,
      format: file.endsWith('.anthropic.json') ? 'anthropic' : 'openai',
    });
  }

  const preferred = samples.find((s) => s.id === DEFAULT_SAMPLE) ?? samples[0];
  const manifest = { defaultSample: preferred?.id ?? null, samples };
  writeFileSync(join(assets, 'manifest.json'), JSON.stringify(manifest, null, 2));
  return manifest;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const manifest = copyDemoAssets();
  console.log(`[demo-assets] www/assets/: the package and ${manifest.samples.length} conversations`);
}
