//! `ContextManager` for JS: the core state machine behind `Rc<RefCell<…>>`,
//! borrowed only between awaits, with one shared summary in flight at a time.
//!
//! The user's functions (`onEvent`, `countTokens`, `summarize`) may throw and may
//! call back into the manager: no borrow is held while they run, what they throw
//! is caught, and neither `onEvent` nor `countTokens` is re-entered, so a callback
//! that calls back cannot recurse without end (a stack overflow unwinding through
//! WebAssembly would leave a borrow taken for good).

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::task::{Poll, Waker};

use futures::future::poll_fn;
use wasm_bindgen::prelude::*;

use super::compactor_options::{llm_config, threshold_config};
use super::convert::{
    context_limit, from_js, input_message_from_js, input_messages_from_js, summaries_from_js, token_count,
};
use super::errors::{expected_got, invalid, threw, to_js_error};
use super::inspect::{is_plain_object, plain_object};
use super::js_summarizer::JsSummarizer;
use super::options::{Options, MAX_SAFE_INTEGER};
use super::outcome::{
    block_dropped_to_js, counts_js, event_to_js, nothing_to_compact_to_js, outcome_to_js, over_limit_to_js,
    started_to_js,
};
use super::promise::future_to_promise;
use super::values::{read_again_or, tape, tape_to_js, LastRead};
use crate::compaction::config::{CompactionConfig, CompactorType};
use crate::error::LlmError;
use crate::manager::context_manager::{ContextManager, ContextManagerConfig, Outcome, Step, SummaryJob};
use crate::manager::request_body::BodyRequest;
use crate::summarizer::summarize_with_timeout;

/// The summary in flight: its outcome once it is known, and the callers waiting
/// for it (one thread: an `Rc` and the waiting wakers).
#[derive(Default)]
struct Flight {
    outcome: Option<Rc<Option<Outcome>>>,
    waiting: Vec<Waker>,
}

struct State {
    core: RefCell<ContextManager>,
    summarizer: Option<JsSummarizer>,
    on_event: Option<js_sys::Function>,
    count_tokens: Option<js_sys::Function>,
    flight: RefCell<Option<Rc<RefCell<Flight>>>>,
    /// Whether `onEvent` is running: a compaction it starts raises no events.
    in_on_event: Cell<bool>,
    /// Whether `countTokens` is running: what it reads uses the last count or the estimate.
    counting: Cell<bool>,
    /// Whether the `nothing_to_compact` event was emitted (it is, once).
    said_nothing_to_compact: Cell<bool>,
    /// The options `requestBody` read last: an agent gives the same ones at every step.
    last_request: RefCell<Option<LastRead<Rc<BodyRequest>>>>,
}

/// A conversation kept under its context limit.
#[wasm_bindgen(js_name = ContextManager)]
pub struct JsContextManager {
    state: Rc<State>,
}

#[wasm_bindgen(js_class = ContextManager)]
impl JsContextManager {
    /// `new ContextManager({ contextLimit, compactor, onEvent })`
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue) -> Result<JsContextManager, JsValue> {
        let (config, callbacks) = read_options(&options)?;
        Ok(Self::with_core(ContextManager::new(config)?, callbacks))
    }

    /// Restores a manager saved with `toJSON()`; `options` as for the constructor.
    #[wasm_bindgen(js_name = fromJSON)]
    pub fn from_json(state: JsValue, options: JsValue) -> Result<JsContextManager, JsValue> {
        let (config, callbacks) = read_options(&options)?;
        plain_object(&state, "state", "a saved state object (what toJSON() returned)")?;
        if !state.is_undefined() {
            let path = "state.compactSummaries";
            let summaries = js_sys::Reflect::get(&state, &"compactSummaries".into()).map_err(|e| threw(path, &e))?;
            if !summaries.is_null() {
                plain_object(&summaries, path, "an object of tool_use_id → summary, as toJSON() writes it")?;
            }
        }
        let core = ContextManager::restore(config, &from_js(&state, "state")?, "state")?;
        Ok(Self::with_core(core, callbacks))
    }

    fn with_core(core: ContextManager, callbacks: Callbacks) -> Self {
        let Callbacks { summarizer, on_event, count_tokens } = callbacks;
        let state = State {
            core: RefCell::new(core),
            summarizer,
            on_event,
            count_tokens,
            flight: RefCell::new(None),
            in_on_event: Cell::new(false),
            counting: Cell::new(false),
            said_nothing_to_compact: Cell::new(false),
            last_request: RefCell::new(None),
        };
        Self { state: Rc::new(state) }
    }

    /// Appends one message (validated; missing `id`, `session_id`, `created_at`
    /// filled in, a missing `turn_id` given by the step rule).
    pub fn push(&self, message: JsValue) -> Result<(), JsValue> {
        let message = input_message_from_js(&message, "message")?;
        push_all(&mut self.state.core.borrow_mut(), [message]);
        Ok(())
    }

    /// Appends several messages; all or nothing.
    #[wasm_bindgen(js_name = pushMany)]
    pub fn push_many(&self, messages: JsValue) -> Result<(), JsValue> {
        let messages = input_messages_from_js(&messages, "messages")?;
        push_all(&mut self.state.core.borrow_mut(), messages);
        Ok(())
    }

    /// A copy of the conversation, oldest first.
    pub fn messages(&self) -> Result<JsValue, JsValue> {
        // Written while borrowed, made into JS values (JS runs) once not.
        let tape = tape(self.state.core.borrow().messages(), "messages")?;
        tape_to_js(&tape, "messages")
    }

    /// The provider request body as UTF-8 JSON bytes, ready for `fetch`:
    /// `requestBody({ format, system?, ...fields })` writes `fields` and the
    /// conversation in `format`'s wire format. Each message is serialized once
    /// and again only when compaction changes it; a block the format has no
    /// equivalent for is left out of it and reported to `onEvent` then.
    #[wasm_bindgen(js_name = requestBody)]
    pub fn request_body(&self, options: JsValue) -> Result<js_sys::Uint8Array, JsValue> {
        plain_object(&options, "options", "an options object")?;
        let request = read_again_or(&options, "options", &self.state.last_request, |value| {
            Ok(Rc::new(BodyRequest::parse(value, "options")?))
        })?;
        let (body, dropped) = {
            let mut core = self.state.core.borrow_mut();
            let (bytes, dropped) = core.request_body_with_dropped(&request);
            (js_sys::Uint8Array::from(bytes), dropped)
        };
        if self.state.on_event.is_some() {
            for d in &dropped {
                call_on_event(&self.state, block_dropped_to_js(d, request.format));
            }
        }
        Ok(body)
    }

    /// Records the provider's input-token count for the last request.
    #[wasm_bindgen(js_name = setContextUsed)]
    pub fn set_context_used(&self, input_tokens: JsValue) -> Result<(), JsValue> {
        let tokens = token_count(&input_tokens, "inputTokens")?;
        self.state.core.borrow_mut().set_context_used(tokens);
        Ok(())
    }

    /// Stores compact summaries of tool results: `{ [toolUseId]: summary }` or a `Map`.
    #[wasm_bindgen(js_name = storeCompactSummaries)]
    pub fn store_compact_summaries(&self, summaries: JsValue) -> Result<(), JsValue> {
        let summaries = summaries_from_js(&summaries, "summaries")?;
        self.state.core.borrow_mut().store_compact_summaries(summaries);
        Ok(())
    }

    /// Context used now, in tokens: the provider's last figure plus an estimate
    /// of what was pushed since, or an estimate of the whole conversation.
    #[wasm_bindgen(getter, js_name = contextUsed)]
    pub fn context_used(&self) -> f64 {
        refresh_count(&self.state);
        self.state.core.borrow().context_used() as f64
    }

    /// The context limit, in tokens.
    #[wasm_bindgen(getter, js_name = contextLimit)]
    pub fn context_limit(&self) -> f64 {
        self.state.core.borrow().config().context_limit as f64
    }

    /// Estimated tokens of the conversation as held.
    #[wasm_bindgen(getter, js_name = estimatedTokens)]
    pub fn estimated_tokens(&self) -> f64 {
        self.state.core.borrow().estimated_tokens() as f64
    }

    /// Whether the context fits in its room (`contextLimit - reserveTokens`).
    #[wasm_bindgen(getter)]
    pub fn fits(&self) -> bool {
        refresh_count(&self.state);
        self.state.core.borrow().fits()
    }

    /// Whether a summary is being awaited.
    #[wasm_bindgen(getter, js_name = isCompacting)]
    pub fn is_compacting(&self) -> bool {
        self.state.core.borrow().is_compacting()
    }

    /// Whether the context is above the threshold now.
    #[wasm_bindgen(js_name = shouldCompact)]
    pub fn should_compact(&self) -> bool {
        refresh_count(&self.state);
        self.state.core.borrow().should_compact()
    }

    /// Compacts when above the threshold. Resolves to the outcome, or `null`
    /// when nothing was done; never rejects (failures are in the outcome).
    /// A threshold compaction is done before this returns; a summary is awaited.
    #[wasm_bindgen(js_name = maybeCompact)]
    pub fn maybe_compact(&self) -> js_sys::Promise {
        compaction(&self.state, false, |outcome| Ok(outcome.map_or(JsValue::NULL, outcome_to_js)))
    }

    /// Compacts now, whatever the threshold. Resolves to the result; rejects
    /// with a `CompactionError` when the LLM compaction failed (after the
    /// fallback, if any, has run). Starts as `maybeCompact` does.
    #[wasm_bindgen(js_name = forceCompact)]
    pub fn force_compact(&self) -> js_sys::Promise {
        compaction(&self.state, true, |outcome| match outcome {
            Some(Outcome { error: Some(error), .. }) => Err(to_js_error(error)),
            Some(outcome) => Ok(counts_js(&outcome.result)),
            None => Ok(counts_js(&Default::default())),
        })
    }

    /// The state to persist: `{ version, messages, compactSummaries, contextUsed }`.
    #[wasm_bindgen(js_name = toJSON)]
    pub fn to_json(&self) -> Result<JsValue, JsValue> {
        let tape = tape(&self.state.core.borrow().saved_state(), "state")?;
        tape_to_js(&tape, "state")
    }
}

/// Pushes messages read from JS: those with a `turn_id` keep it, the others
/// get theirs from the step rule.
fn push_all(core: &mut ContextManager, messages: impl IntoIterator<Item = (crate::model::message::Message, bool)>) {
    for (message, has_turn_id) in messages {
        match has_turn_id {
            true => core.push(message),
            false => core.push_step(message),
        }
    }
}

/// What a compaction call settles with, given the outcome.
type Settle = fn(Option<&Outcome>) -> Result<JsValue, JsValue>;

/// A compaction ([`start`]) as a promise of `settle` of its outcome: settled at
/// once when the outcome is known, else when [`finish`] has it.
fn compaction(state: &Rc<State>, force: bool, settle: Settle) -> js_sys::Promise {
    match start(state, force) {
        Ok(outcome) => match settle(outcome.as_ref()) {
            Ok(value) => js_sys::Promise::resolve(&value),
            Err(error) => js_sys::Promise::reject(&error),
        },
        Err(wait) => future_to_promise(finish(Rc::clone(state), wait, settle)),
    }
}

/// What a call that did not finish at once waits for.
enum Wait {
    /// The summary another call asked for.
    Join(Rc<RefCell<Flight>>),
    /// This call's own summary: it runs the summarizer and settles the flight;
    /// `events` says whether it reports the outcome to `onEvent`.
    Summarize { job: SummaryJob, events: bool },
}

/// Starts one compaction: its outcome when it is done at once (or there is
/// nothing to do), else the summary to wait for, joined if one is in flight.
/// The flight is set before `compaction_started` is emitted, so that calls made
/// by the handler join it. A compaction started inside `onEvent` raises no
/// events: a handler that compacts on every event would otherwise never end.
fn start(state: &Rc<State>, force: bool) -> Result<Option<Outcome>, Wait> {
    if state.flight.borrow().is_none() {
        refresh_count(state); // `countTokens` may start a compaction: looked for next
    }
    let in_flight = state.flight.borrow().clone();
    if let Some(flight) = in_flight {
        return Err(Wait::Join(flight));
    }
    let events = !state.in_on_event.get();
    let step = state.core.borrow_mut().begin(force);
    match step {
        Step::Idle | Step::Busy => Ok(None),
        Step::Done(outcome) => {
            if events {
                emit(state, &outcome);
            }
            Ok(Some(outcome))
        }
        Step::Summarize(job) => {
            *state.flight.borrow_mut() = Some(Rc::default());
            if events {
                emit_started(state, job.request.prompt.len());
            }
            Err(Wait::Summarize { job, events })
        }
    }
}

/// `settle` of the outcome [`start`] left to wait for. No borrow is held across an await.
async fn finish(state: Rc<State>, wait: Wait, settle: Settle) -> Result<JsValue, JsValue> {
    let outcome = match wait {
        Wait::Join(flight) => {
            poll_fn(|cx| {
                let mut flight = flight.borrow_mut();
                match &flight.outcome {
                    Some(outcome) => Poll::Ready(Rc::clone(outcome)),
                    None => {
                        flight.waiting.push(cx.waker().clone());
                        Poll::Pending
                    }
                }
            })
            .await
        }
        Wait::Summarize { job, events } => {
            let answer = match &state.summarizer {
                Some(summarizer) => summarize_with_timeout(summarizer, &job.request, job.timeout).await,
                None => Err(LlmError::new("no summarize function configured").into()),
            };
            let outcome = Rc::new(state.core.borrow_mut().complete(job.id, answer));
            let flight = state.flight.borrow_mut().take();
            if let Some(flight) = flight {
                let waiting = {
                    let mut flight = flight.borrow_mut();
                    flight.outcome = Some(Rc::clone(&outcome));
                    std::mem::take(&mut flight.waiting)
                };
                waiting.into_iter().for_each(Waker::wake);
            }
            if events {
                if let Some(outcome) = &*outcome {
                    emit(&state, outcome);
                }
            }
            outcome
        }
    };
    settle(outcome.as_ref().as_ref())
}

/// Counts tokens with the user's `countTokens` when no provider figure is fresh
/// and the conversation changed since the last count. A counter that throws or
/// answers something else than a token count is ignored: the estimate stands.
/// Not called from inside itself; a count of messages it changed is not used.
fn refresh_count(state: &State) {
    let Some(count_tokens) = &state.count_tokens else { return };
    if state.counting.get() || !state.core.borrow().needs_count() {
        return;
    }
    let (version, messages) = {
        let core = state.core.borrow();
        (core.version(), tape(core.messages(), "messages"))
    };
    // Too large for a JS string: no count, the estimate stands.
    let Ok(messages) = messages.and_then(|tape| tape_to_js(&tape, "messages")) else { return };
    state.counting.set(true);
    let answer = count_tokens.call1(&JsValue::UNDEFINED, &messages);
    state.counting.set(false);
    if let Ok(tokens) = answer.and_then(|answer| token_count(&answer, "countTokens()")) {
        state.core.borrow_mut().set_counted_tokens(version, tokens);
    }
}

/// The user's functions from the options.
struct Callbacks {
    summarizer: Option<JsSummarizer>,
    on_event: Option<js_sys::Function>,
    count_tokens: Option<js_sys::Function>,
}

fn read_options(options: &JsValue) -> Result<(ContextManagerConfig, Callbacks), JsValue> {
    let known = ["contextLimit", "compactor", "onEvent", "countTokens", "reserveTokens", "maxToolResultTokens"];
    let options = Options::new(options, "options", &known, &[])?;
    let limit = options.get("contextLimit")?.ok_or_else(|| invalid(options.path("contextLimit"), "is required"))?;
    let context_limit = context_limit(&limit, &options.path("contextLimit"))?;
    let reserve_tokens = options.integer("reserveTokens", 0.0, (context_limit - 1) as f64)?.unwrap_or(0.0) as i64;
    let max_tool_result_tokens = options.integer("maxToolResultTokens", 1.0, MAX_SAFE_INTEGER)?.map(|n| n as i64);
    let on_event = options.function("onEvent")?;
    let count_tokens = options.function("countTokens")?;
    let (compactor, fallback, summarizer) = read_compactor(&options.get("compactor")?.unwrap_or(JsValue::UNDEFINED))?;
    let config = ContextManagerConfig { context_limit, compactor, fallback, reserve_tokens, max_tool_result_tokens };
    Ok((config, Callbacks { summarizer, on_event, count_tokens }))
}

/// The `compactor` option (at `options.compactor`): the compactor, its fallback, and the summarizer.
fn read_compactor(
    compactor: &JsValue,
) -> Result<(CompactorType, Option<CompactionConfig>, Option<JsSummarizer>), JsValue> {
    const PATH: &str = "options.compactor";
    const TYPE: &str = "options.compactor.type";
    let kind = if compactor.is_undefined() || compactor.is_null() {
        "threshold".to_owned()
    } else if is_plain_object(compactor, PATH)? {
        let kind = js_sys::Reflect::get(compactor, &"type".into()).unwrap_or(JsValue::UNDEFINED);
        kind.as_string().ok_or_else(|| invalid(TYPE, "is required: \"threshold\" or \"llm\""))?
    } else {
        return Err(invalid(PATH, "expected { type: \"threshold\" | \"llm\", … }"));
    };
    Ok(match kind.as_str() {
        "threshold" => (CompactorType::Threshold(threshold_config(compactor, PATH, &["type"])?), None, None),
        "llm" => {
            let (config, summarize, llm_options) = llm_config(compactor, PATH, &["type", "fallback"])?;
            let fallback = match llm_options.get("fallback")? {
                None => None,
                Some(v) if v.is_null() => None,
                Some(v) => Some(threshold_config(&v, &llm_options.path("fallback"), &[])?),
            };
            (CompactorType::LLM(config), fallback, Some(JsSummarizer::new(summarize)))
        }
        other => return Err(expected_got(TYPE, "\"threshold\" or \"llm\"", &crate::text::quoted(other))),
    })
}

fn emit_started(state: &State, prompt_chars: usize) {
    if state.on_event.is_none() {
        return;
    }
    let tokens = state.core.borrow().context_used();
    call_on_event(state, started_to_js(prompt_chars, tokens));
}

/// The events of a finished compaction: `compaction` or `compaction_failed`,
/// then `nothing_to_compact` (the first time only) and `over_limit` when they apply.
fn emit(state: &State, outcome: &Outcome) {
    if state.on_event.is_none() {
        return;
    }
    call_on_event(state, event_to_js(outcome));
    if outcome.no_tool_results && !state.said_nothing_to_compact.replace(true) {
        call_on_event(state, nothing_to_compact_to_js());
    }
    if !outcome.fits {
        let (limit, reserve) = {
            let core = state.core.borrow();
            (core.config().context_limit, core.config().reserve_tokens)
        };
        call_on_event(state, over_limit_to_js(outcome, limit, reserve));
    }
}

/// Calls `onEvent`; an exception thrown by it never disturbs the compaction.
fn call_on_event(state: &State, event: JsValue) {
    let Some(on_event) = &state.on_event else { return };
    state.in_on_event.set(true);
    let _ = on_event.call1(&JsValue::UNDEFINED, &event);
    state.in_on_event.set(false);
}
