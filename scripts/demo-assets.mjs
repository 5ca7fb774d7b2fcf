// Copies what the demo page loads into www/assets/ (git-ignored): the built package
// (pkg/ must be built: scripts/build.sh), the shared transcripts and a manifest.
//
//   node scripts/demo-assets.mjs
//   CONVERSATIONS_DIR=/path/to/conversations node scripts/demo-assets.mjs
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const PKG_FILES = ['web.mjs', 'context_compactor.js', 'context_compactor_bg.wasm', 'snippets'];

/** The sample that is selected on first load: the tool-calling transcripts joined into one session. */
export const JOINED_ID = 'tools-joined';

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

  // The transcripts are one task each, so one or two turns: joined, the tool-calling ones
  // read as one agent session that worked on several tasks in a row (as in
  // examples/compact-transcript.mjs), which gives keep-recent-turns something to keep.
  const tools = files.filter((f) => f.startsWith('tools.') && f.endsWith('.anthropic.json'));
  if (tools.length > 0) {
    const parts = tools.map((f) => JSON.parse(readFileSync(join(conversationsDir, f), 'utf8')));
    const joined = { system: parts[0].system, messages: parts.flatMap((p) => p.messages) };
    const file = `conversations/${JOINED_ID}.anthropic.json`;
    writeFileSync(join(assets, file), JSON.stringify(joined, null, 1));
    samples.unshift({
      id: JOINED_ID,
      title: `${tools.length} tool-calling sessions, one after another`,
      file,
      format: 'anthropic',
      joined: tools,
    });
  }

  const manifest = { defaultSample: samples[0]?.id ?? null, samples };
  writeFileSync(join(assets, 'manifest.json'), JSON.stringify(manifest, null, 2));
  return manifest;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const manifest = copyDemoAssets();
  console.log(`[demo-assets] www/assets/: the package and ${manifest.samples.length} conversations`);
}
