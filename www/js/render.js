// Drawing: the context gauges, the outcome line, and the conversation turn by turn with
// what compaction did to each message. Transcript text only ever goes through textContent.

export const REDACTED = '[Content redacted for context management]';
/** The marker of a tool result the escalation cut down (head and tail kept). */
const TRUNCATED = /\n\[… [\d,]+ characters \(about \d+ tokens\) cut for context management …\]\n/;
const PREVIEW_CHARS = 600;
const PREVIEW_LINES = 12;

/** `el('div', { class: 'x', dataset: { a: 1 } }, child, 'text', …)` */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') node.className = value;
    else if (key === 'dataset') Object.assign(node.dataset, value);
    else if (key === 'text') node.textContent = value;
    else node.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

const percent = (used, limit) => (limit > 0 ? Math.round((used / limit) * 1000) / 10 : 0);

/** Fills a gauge: `tokens` against `limit`, with the threshold marked. `tokens` null: empty. */
export function drawGauge(gauge, tokens, limit, threshold) {
  const fill = gauge.querySelector('.fill');
  const mark = gauge.querySelector('.mark');
  const figure = gauge.querySelector('.figure');
  mark.style.left = `${Math.min(threshold, 1) * 100}%`;
  mark.title = `threshold ${Math.round(threshold * 100)} %`;
  if (tokens === null) {
    gauge.dataset.tokens = '';
    fill.style.width = '0';
    figure.textContent = '—';
    gauge.classList.remove('over', 'full');
    return;
  }
  const ratio = limit > 0 ? tokens / limit : 0;
  gauge.dataset.tokens = String(tokens);
  gauge.dataset.limit = String(limit);
  fill.style.width = `${Math.min(ratio, 1) * 100}%`;
  gauge.classList.toggle('over', ratio > threshold);
  gauge.classList.toggle('full', ratio > 1);
  figure.textContent = `${tokens.toLocaleString('en-US')} / ${limit.toLocaleString('en-US')} tokens (${percent(tokens, limit)} %)`;
}

// ---------------------------------------------------------------- what happened to each message

const sameJson = (a, b) => JSON.stringify(a) === JSON.stringify(b);

/**
 * Compares the conversation before and after compaction (messages keep their ids; the LLM
 * summary is the message with `summary_of`). Returns the rows to draw, in order:
 *   { kind: 'message', message, status: 'kept' | 'summarized' | 'truncated' | 'redacted' | 'replaced', blocks }
 *   { kind: 'summary', message }
 * `blocks[i]` is { status, before, after } for each content block of the message.
 */
export function classify(before, after) {
  if (after === null) {
    return before.map((message) => ({
      kind: 'message', message, status: 'kept', blocks: message.content.map((b) => ({ status: 'kept', before: b, after: b })),
    }));
  }
  const afterById = new Map(after.map((m) => [m.id, m]));
  const summary = after.find((m) => m.summary_of);
  const rows = [];
  let summaryPlaced = false;
  for (const message of before) {
    const now = afterById.get(message.id);
    if (now === undefined) {
      if (summary && !summaryPlaced) { rows.push({ kind: 'summary', message: summary }); summaryPlaced = true; }
      rows.push({
        kind: 'message', message, status: 'replaced', blocks: message.content.map((b) => ({ status: 'replaced', before: b, after: null })),
      });
      continue;
    }
    const blocks = message.content.map((b, i) => {
      const a = now.content[i];
      if (b.type !== 'tool_result' || a === undefined || sameJson(b.content, a.content)) return { status: 'kept', before: b, after: a ?? b };
      return { status: a.content === REDACTED ? 'redacted' : TRUNCATED.test(a.content) ? 'truncated' : 'summarized', before: b, after: a };
    });
    const status = blocks.some((b) => b.status === 'redacted') ? 'redacted'
      : blocks.some((b) => b.status === 'summarized') ? 'summarized'
        : blocks.some((b) => b.status === 'truncated') ? 'truncated' : 'kept';
    rows.push({ kind: 'message', message: now, status, blocks });
  }
  if (summary && !summaryPlaced) rows.unshift({ kind: 'summary', message: summary });
  return rows;
}

// ---------------------------------------------------------------- drawing the conversation

function textOf(content) {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content.map((c) => (typeof c?.text === 'string' ? c.text : `[${c?.type ?? 'block'}]`)).join('\n');
  }
  return JSON.stringify(content, null, 2);
}

/** Long text: a preview, with the rest behind a disclosure. */
function longText(text, className = 'text') {
  const preview = text.slice(0, PREVIEW_CHARS).split('\n').slice(0, PREVIEW_LINES).join('\n');
  if (preview.length === text.length) return el('pre', { class: className, text });
  return el('div', {},
    el('pre', { class: className, text: `${preview}…` }),
    el('details', {}, el('summary', { text: `show all ${text.length.toLocaleString('en-US')} characters` }),
      el('pre', { class: className, text })));
}

function drawBlock(block) {
  const b = block.after ?? block.before;
  switch (b.type) {
    case 'text':
      return el('div', { class: 'block text-block' }, longText(b.text));
    case 'tool_use':
      return el('div', { class: 'block tool-use' },
        el('div', { class: 'block-head' }, el('span', { class: 'kind', text: 'tool call' }), el('code', { text: b.name }), el('span', { class: 'muted', text: b.id })),
        longText(JSON.stringify(b.input, null, 2), 'code'));
    case 'tool_result': {
      const head = el('div', { class: 'block-head' },
        el('span', { class: 'kind', text: b.is_error ? 'tool result (error)' : 'tool result' }),
        el('span', { class: 'muted', text: b.tool_use_id }),
        block.status === 'kept' ? null : el('span', { class: `tag ${block.status}`, text: block.status }));
      if (block.status === 'summarized' || block.status === 'redacted' || block.status === 'truncated') {
        const original = textOf(block.before.content);
        return el('div', { class: `block tool-result ${block.status}`, dataset: { status: block.status } },
          head,
          el('pre', { class: 'code now', text: textOf(b.content) }),
          el('details', { class: 'original' },
            el('summary', { text: `original (${original.length.toLocaleString('en-US')} characters)` }),
            el('pre', { class: 'code', text: original })));
      }
      return el('div', { class: 'block tool-result', dataset: { status: block.status } }, head, longText(textOf(b.content), 'code'));
    }
    default:
      return el('div', { class: 'block other' },
        el('div', { class: 'block-head' }, el('span', { class: 'kind', text: b.type })),
        longText(JSON.stringify(b, null, 2), 'code'));
  }
}

const turnKey = (m) => `${m.turn_id.owner}${m.turn_id.number}`;

function drawMessage(row) {
  const { message, status } = row;
  const card = el('article', { class: `message ${message.role} ${status}`, dataset: { status, id: message.id } },
    el('header', {},
      el('span', { class: 'role', text: message.role }),
      el('span', { class: `tag ${status}`, text: status === 'replaced' ? 'replaced by summary' : status })),
    row.blocks.map(drawBlock));
  if (status === 'replaced') {
    const details = el('details', { class: 'replaced-body' }, el('summary', { text: 'show the original' }));
    details.append(...[...card.children].slice(1));
    card.append(details);
  }
  return card;
}

function drawSummary(message) {
  const s = message.summary_of;
  return el('article', { class: 'message summary', dataset: { status: 'summary', id: message.id } },
    el('header', {},
      el('span', { class: 'role', text: message.role }),
      el('span', { class: 'tag summary', text: `LLM summary of ${s.messages} messages, ${s.turns} turns` })),
    message.content.map((b) => el('div', { class: 'block text-block' }, el('pre', { class: 'text', text: textOf(b.text ?? b.content ?? '') }))));
}

/** Draws the rows grouped by turn (consecutive messages with the same turn id). */
export function drawConversation(container, rows) {
  const turns = [];
  for (const row of rows) {
    const key = row.kind === 'summary' ? `summary:${row.message.id}` : turnKey(row.message);
    const last = turns[turns.length - 1];
    if (last && last.key === key) last.rows.push(row);
    else turns.push({ key, rows: [row], turnId: row.message.turn_id, summary: row.kind === 'summary' });
  }
  const sections = [];
  let replacedGroup = null;
  for (const turn of turns) {
    const section = drawTurn(turn);
    const allReplaced = turn.rows.every((r) => r.kind === 'message' && r.status === 'replaced');
    if (!allReplaced) { replacedGroup = null; sections.push(section); continue; }
    if (replacedGroup === null) {
      replacedGroup = { messages: 0, turns: 0, body: el('details', { class: 'replaced-group' }, el('summary')) };
      sections.push(replacedGroup.body);
    }
    replacedGroup.messages += turn.rows.length;
    replacedGroup.turns += 1;
    replacedGroup.body.querySelector('summary').textContent = `${replacedGroup.messages} message${replacedGroup.messages === 1 ? '' : 's'} in `
      + `${replacedGroup.turns} turn${replacedGroup.turns === 1 ? '' : 's'} replaced by the summary above: show them`;
    replacedGroup.body.append(section);
  }
  container.replaceChildren(...sections);
}

function drawTurn(turn) {
  const statuses = new Set(turn.rows.map((r) => (r.kind === 'summary' ? 'summary' : r.status)));
  const touched = [...statuses].filter((s) => s !== 'kept');
  const label = turn.summary ? 'LLM summary (the message carrying summary_of)'
    : `turn ${turn.turnId.owner}${turn.turnId.number} · ${turn.turnId.owner === 'u' ? 'user' : 'assistant'} · ${turn.rows.length} message${turn.rows.length === 1 ? '' : 's'}`;
  return el('section', { class: `turn ${touched.length ? 'touched' : 'untouched'}` },
    el('h3', {}, label, touched.length && !turn.summary ? el('span', { class: 'muted', text: ` — ${touched.join(', ')}` }) : null),
    turn.rows.map((r) => (r.kind === 'summary' ? drawSummary(r.message) : drawMessage(r))));
}
