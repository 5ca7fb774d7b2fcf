// The form's values, checked, and the API key's storage: in memory unless the user asks
// to remember it (then localStorage, per provider; unticking forgets it).

const $ = (id) => document.getElementById(id);
const KEY_PREFIX = 'context-compactor-demo:api-key:';

/** A user-facing problem with a setting. */
export class SettingsError extends Error {}

function integer(id, label, min) {
  const value = Number($(id).value);
  if (!Number.isInteger(value) || value < min) throw new SettingsError(`${label} must be a whole number ≥ ${min}.`);
  return value;
}

/** The current settings, or a SettingsError naming the field that is wrong. */
export function readSettings() {
  const threshold = Number($('threshold').value);
  if (!(threshold > 0 && threshold < 1)) throw new SettingsError('Threshold must be strictly between 0 and 1.');
  const strategy = document.querySelector('input[name="strategy"]:checked').value;
  const settings = {
    contextLimit: integer('context-limit', 'Context limit', 1),
    threshold,
    keepRecentTurns: integer('keep-recent', 'Keep recent turns', 0),
    strategy,
    firstLineSummaries: $('first-line').checked,
    provider: $('provider').value,
    baseURL: $('base-url').value.trim(),
    apiKey: $('api-key').value.trim(),
    model: $('model').value.trim(),
    prompt: $('prompt').value,
    timeoutMs: 1,
    maxSummaryTokens: 1,
    fallback: $('fallback').checked,
  };
  if (strategy === 'llm') {
    settings.timeoutMs = integer('timeout', 'Timeout', 1);
    settings.maxSummaryTokens = integer('max-tokens', 'Max summary tokens', 1);
    if (settings.prompt.trim() === '') throw new SettingsError('The summary prompt is empty.');
  }
  return settings;
}

const PLACEHOLDERS = {
  openai: { url: 'https://api.openai.com/v1', model: 'gpt-4o-mini' },
  anthropic: { url: 'https://api.anthropic.com (default)', model: 'claude-3-5-haiku-latest' },
};

function storage() {
  try { return window.localStorage; } catch { return null; }
}

/** Shows the fields the strategy and provider need, and loads a remembered key. */
export function syncVisibility() {
  const strategy = document.querySelector('input[name="strategy"]:checked').value;
  $('llm-options').hidden = strategy !== 'llm';
  $('first-line-option').hidden = strategy !== 'summarize';
  const provider = $('provider').value;
  $('endpoint').hidden = provider === 'offline';
  const ph = PLACEHOLDERS[provider];
  if (ph) {
    $('base-url').placeholder = ph.url;
    $('model').placeholder = ph.model;
  }
}

/** Keys typed this session, per provider: in memory only. */
const typedKeys = {};
let keyProvider = null;

/**
 * Shows the key for the current provider: the one typed this session, else a remembered
 * one (localStorage). The key typed for the previous provider is kept in memory.
 */
export function loadRememberedKey() {
  if (keyProvider !== null) typedKeys[keyProvider] = $('api-key').value;
  const provider = $('provider').value;
  keyProvider = provider;
  const saved = storage()?.getItem(KEY_PREFIX + provider) ?? null;
  $('remember-key').checked = saved !== null;
  $('api-key').value = typedKeys[provider] ?? saved ?? '';
}

/** Stores or forgets the key according to the checkbox. */
export function rememberKeyIfAsked() {
  const store = storage();
  if (store === null) return;
  const name = KEY_PREFIX + $('provider').value;
  const key = $('api-key').value.trim();
  if ($('remember-key').checked && key !== '') store.setItem(name, key);
  else store.removeItem(name);
}
