// The shared real transcripts (../shared/conversations relative to the repository).
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const CONVERSATIONS_DIR = new URL('../../../../shared/conversations/', import.meta.url);

/** Every transcript file name, sorted. */
export function conversationFiles() {
  return readdirSync(fileURLToPath(CONVERSATIONS_DIR)).filter((f) => f.endsWith('.json')).sort();
}

/** The parsed JSON of one transcript file. */
export function loadConversation(file) {
  return JSON.parse(readFileSync(new URL(file, CONVERSATIONS_DIR), 'utf8'));
}

/** Transcript names without the `.anthropic.json` / `.openai.json` suffix. */
export function transcriptNames() {
  return [...new Set(conversationFiles().map((f) => f.replace(/\.(anthropic|openai)\.json$/, '')))];
}
