// Independent checkers of the providers' tool pairing rules, on the providers' own
// wire formats (not the package's model), so that they can catch a converter bug.
// Each returns a list of human-readable problems (empty when the rule holds).

/**
 * Anthropic Messages: every `tool_result` block answers a `tool_use` of the
 * immediately preceding message, which is an assistant message; every `tool_use`
 * is answered in the next message (unless it is in the last message).
 */
export function anthropicPairingProblems(messages) {
  const problems = [];
  const blocks = (m) => (Array.isArray(m?.content) ? m.content : []);
  messages.forEach((m, i) => {
    const results = blocks(m).filter((b) => b.type === 'tool_result');
    if (results.length > 0) {
      if (m.role !== 'user') problems.push(`messages[${i}]: tool_result in a ${m.role} message`);
      const prev = messages[i - 1];
      const calls = prev?.role === 'assistant' ? new Set(blocks(prev).filter((b) => b.type === 'tool_use').map((b) => b.id)) : new Set();
      for (const r of results) {
        if (!calls.has(r.tool_use_id)) problems.push(`messages[${i}]: tool_result ${r.tool_use_id} does not answer a tool_use of messages[${i - 1}]`);
      }
    }
    if (m.role === 'assistant' && i + 1 < messages.length) {
      const next = messages[i + 1];
      const answered = new Set(blocks(next).filter((b) => b.type === 'tool_result').map((b) => b.tool_use_id));
      for (const u of blocks(m).filter((b) => b.type === 'tool_use')) {
        if (!answered.has(u.id)) problems.push(`messages[${i}]: tool_use ${u.id} is not answered by messages[${i + 1}]`);
      }
    }
  });
  return problems;
}

/**
 * OpenAI Chat Completions: every `tool` message answers a `tool_calls` entry of the
 * assistant message right before its run of tool messages; every tool call is
 * answered by that run (unless the assistant message is the last message).
 */
export function openAIPairingProblems(messages) {
  const problems = [];
  messages.forEach((m, i) => {
    if (m.role === 'tool') {
      let j = i - 1;
      while (j >= 0 && messages[j].role === 'tool') j--;
      const prev = messages[j];
      const calls = prev?.role === 'assistant' ? new Set((prev.tool_calls ?? []).map((c) => c.id)) : new Set();
      if (!calls.has(m.tool_call_id)) problems.push(`messages[${i}]: tool message ${m.tool_call_id} does not answer a tool call of messages[${j}]`);
    }
    if (m.role === 'assistant' && Array.isArray(m.tool_calls) && m.tool_calls.length > 0 && i + 1 < messages.length) {
      const answered = new Set();
      for (let k = i + 1; k < messages.length && messages[k].role === 'tool'; k++) answered.add(messages[k].tool_call_id);
      for (const c of m.tool_calls) {
        if (!answered.has(c.id)) problems.push(`messages[${i}]: tool call ${c.id} is not answered by the following tool messages`);
      }
    }
  });
  return problems;
}

/**
 * OpenAI Responses: every `function_call_output` answers a `function_call` of the
 * run of non-user items right before its run of outputs.
 */
export function responsesPairingProblems(items) {
  const problems = [];
  items.forEach((item, i) => {
    if (item.type !== 'function_call_output') return;
    let j = i - 1;
    while (j >= 0 && items[j].type === 'function_call_output') j--;
    const calls = new Set();
    for (; j >= 0 && items[j].type !== 'function_call_output' && items[j].role !== 'user'; j--) {
      if (items[j].type === 'function_call') calls.add(items[j].call_id);
    }
    if (!calls.has(item.call_id)) problems.push(`input[${i}]: function_call_output ${item.call_id} has no function_call right before it`);
  });
  return problems;
}

/** Vercel AI SDK: every tool-result of a `tool` message answers a tool-call of the preceding assistant message. */
export function vercelPairingProblems(messages) {
  const problems = [];
  messages.forEach((m, i) => {
    if (m.role !== 'tool') return;
    const prev = messages[i - 1];
    const calls = prev?.role === 'assistant' && Array.isArray(prev.content)
      ? new Set(prev.content.filter((p) => p.type === 'tool-call').map((p) => p.toolCallId)) : new Set();
    for (const p of m.content) {
      if (p.type === 'tool-result' && !calls.has(p.toolCallId)) problems.push(`messages[${i}]: tool-result ${p.toolCallId} does not answer messages[${i - 1}]`);
    }
  });
  return problems;
}
