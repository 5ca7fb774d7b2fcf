// Deterministic agent conversations for the benchmark, in the package's message model.
// Each turn: a user prompt, two tool calls each answered by a ~2 KB tool result, a final
// answer: six messages, two turn ids (`u<k>` for the prompt, `a<k>` for the rest).

/** A small seeded PRNG (mulberry32): the same seed gives the same conversation. */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = ('the a to of and in is it for on with as was at by file line error test function return ' +
  'value import from src main config module const let if else async await result ok failed passed ' +
  'build cargo npm node rust wasm json string number array object index path dir read write').split(' ');

function words(random, chars) {
  let out = '';
  while (out.length < chars) {
    const w = WORDS[Math.floor(random() * WORDS.length)];
    out += random() < 0.08 ? `${w}\n` : `${w} `;
  }
  return out.slice(0, chars);
}

const BASE_TIME = Date.UTC(2026, 0, 1);

/** `turns` agent turns (6 messages each), reproducible for a given `seed`. */
export function generateConversation(turns, seed = 42) {
  const random = prng(seed);
  const messages = [];
  let n = 0;
  const message = (role, owner, number, content) => {
    n += 1;
    messages.push({
      role,
      id: `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`,
      session_id: 1,
      turn_id: { owner, number },
      created_at: new Date(BASE_TIME + n * 1000).toISOString(),
      content,
    });
  };
  for (let k = 1; k <= turns; k++) {
    message('user', 'u', k, [{ type: 'text', text: words(random, 80 + Math.floor(random() * 200)) }]);
    for (let c = 1; c <= 2; c++) {
      const id = `toolu_${k}_${c}`;
      const tool = random() < 0.5 ? 'read_file' : 'run_command';
      message('assistant', 'a', k, [
        { type: 'text', text: words(random, 40 + Math.floor(random() * 80)) },
        { type: 'tool_use', id, name: tool, input: { path: `src/${words(random, 12).trim().replace(/\W+/g, '_')}.rs` } },
      ]);
      message('user', 'a', k, [{
        type: 'tool_result',
        tool_use_id: id,
        content: words(random, 1800 + Math.floor(random() * 400)),
        is_error: false,
        compact_summary: `${tool} ok: ${words(random, 60)}`,
      }]);
    }
    message('assistant', 'a', k, [{ type: 'text', text: words(random, 200 + Math.floor(random() * 400)) }]);
  }
  return messages;
}

/** One more turn for `messages` (continuing its numbering), for the steady-state request case. */
export function nextTurn(messages, seed = 7) {
  const last = messages.at(-1).turn_id.number;
  return generateConversation(1, seed).map((m, i) => ({
    ...m,
    id: `00000000-0000-4000-9000-${(messages.length + i).toString(16).padStart(12, '0')}`,
    turn_id: { owner: m.turn_id.owner, number: last + 1 },
    content: m.content.map((b) => (b.type === 'tool_use' ? { ...b, id: `${b.id}_${last + 1}` }
      : b.type === 'tool_result' ? { ...b, tool_use_id: `${b.tool_use_id}_${last + 1}` } : b)),
  }));
}

// Words of other scripts, for the cases where text is not English: Cyrillic (2 bytes per
// letter in UTF-8, words between spaces) and Chinese (3 bytes per character, no spaces).
const SCRIPTS = {
  cyrillic: ('файл строка ошибка тест функция вернуть значение импорт модуль конфигурация если иначе ' +
    'результат успешно сборка путь каталог прочитать записать число массив объект индекс и в на с по ' +
    'для это был как от до при что проверка запуск вывод данные список ключ поле').split(' '),
  cjk: ('文件 行 错误 测试 函数 返回 值 导入 模块 配置 如果 否则 结果 成功 构建 路径 目录 读取 写入 数字 ' +
    '数组 对象 索引 的 在 是 和 了 为 从 到 用 检查 运行 输出 数据 列表 键 字段').split(' '),
};

/** `messages` with every English word of its texts, tool results and summaries replaced by a
 * word of `script` (`"cyrillic"` or `"cjk"`; CJK text loses its spaces), deterministically. */
export function inScript(messages, script) {
  const words = SCRIPTS[script];
  const translate = (text) => {
    const out = text.replace(/[a-z]+/g, (w) => words[[...w].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 7) % words.length]);
    return script === 'cjk' ? out.replace(/ +/g, '') : out;
  };
  return messages.map((m) => ({
    ...m,
    content: m.content.map((b) => (b.type === 'text' ? { ...b, text: translate(b.text) }
      : b.type === 'tool_result' ? { ...b, content: translate(b.content), compact_summary: translate(b.compact_summary) } : b)),
  }));
}

/** `messages` with each tool result's content as an array of one text block
 * (`[{ type: "text", text }]`), as Anthropic's and MCP's tool results often are. */
export function withBlockContents(messages) {
  return messages.map((m) => ({
    ...m,
    content: m.content.map((b) => (b.type === 'tool_result' ? { ...b, content: [{ type: 'text', text: b.content }] } : b)),
  }));
}

/**
 * `messages` with fields the model does not know, as apps add them: a `metadata`
 * object on each message (a model name, token usage, a latency in seconds, a
 * score with 17 significant digits) and `cache_control` on each tool result.
 */
export function withMetadata(messages) {
  return messages.map((m, i) => ({
    ...m,
    metadata: { model: 'claude-sonnet-4-5', usage: { input: 1000 + i, output: 50 + (i % 97) }, latency: (i % 53) / 10, score: i / 7 },
    content: m.content.map((b) => (b.type === 'tool_result' ? { ...b, cache_control: { type: 'ephemeral' } } : b)),
  }));
}

/**
 * A single-task agent session of `steps` model steps, without turn ids (a manager
 * gives them by the step rule): the task, then per step an assistant message with a
 * thought and a tool call and the user message with its ~2 KB result; a final answer.
 */
export function agentSession(steps, seed = 11) {
  const random = prng(seed);
  const messages = [{ role: 'user', content: [{ type: 'text', text: `Task: ${words(random, 1200)}` }] }];
  for (let s = 1; s <= steps; s++) {
    const id = `toolu_${s}`;
    messages.push({ role: 'assistant', content: [
      { type: 'text', text: words(random, 60 + Math.floor(random() * 120)) },
      { type: 'tool_use', id, name: random() < 0.5 ? 'read_file' : 'run_command', input: { path: `src/${s}.rs` } },
    ] });
    messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: words(random, 1800 + Math.floor(random() * 400)) }] });
  }
  messages.push({ role: 'assistant', content: [{ type: 'text', text: words(random, 300) }] });
  return messages;
}
