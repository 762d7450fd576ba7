//! One call's asks on protocol 2026-07-28, where the server cannot send
//! the client requests: the answers the call came with, and the requests
//! its tool made that no answer met yet, which the call answers as an
//! input-required result.

use std::borrow::Cow;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use rmcp::ErrorData;
use rmcp::model::{InputRequest, InputRequests, InputRequiredResult, InputResponses};
use serde_json::{Map, Value};
use tokio::sync::Notify;

use super::Caller;
use super::task::TaskLink;
use super::want::Want;
use crate::call::roundtrip::{self, Carried, Talkback};

/// One call's asks on protocol 2026-07-28: the answers it came with, and
/// the requests its tool made that no answer met yet.
#[derive(Debug)]
pub(crate) struct Rounds {
    responses: Option<InputResponses>,
    state: Option<String>,
    /// What the sealed state is bound to, hashed when an ask first needs
    /// it: a call whose tool never asks never hashes its arguments.
    binding: OnceLock<[u8; 32]>,
    /// What `binding` is hashed from, kept as the call was parsed.
    bound_to: Mutex<Option<Binding>>,
    inner: Mutex<RoundsInner>,
    /// Signalled when an ask is left waiting, or refused the call.
    waiting: Notify,
}

#[derive(Debug, Default)]
struct RoundsInner {
    /// The answers of earlier rounds, once the state was opened.
    carried: Option<Carried>,
    /// Every answer this round's asks found, carried into the next round.
    used: Carried,
    /// The requests no answer met yet.
    pending: InputRequests,
    /// Why the call is refused instead: a forged state, an answer of the
    /// wrong shape.
    refusal: Option<ErrorData>,
    /// How many asks the tool made so far.
    asks: usize,
    /// The task the call became: its asks wait there from then on.
    task: Option<Arc<TaskLink>>,
}

/// What a call's sealed state is bound to: who called, the tool called
/// (the dispatcher, when routed), the tool that runs and its arguments.
#[derive(Debug)]
pub(crate) struct Binding {
    pub(crate) caller: Caller,
    pub(crate) called: Cow<'static, str>,
    pub(crate) tool: &'static str,
    pub(crate) args: Value,
}

/// What an ask comes to.
pub(super) enum Found<A> {
    Answer(A),
    /// Left waiting for the next round, or the call is refused: the tool
    /// never gets past this ask in this round.
    Wait,
    /// The call is a task: the answer comes through it.
    InTask(Box<Parked>),
}

/// An ask of a call that became a task: the answer to `request` comes
/// through `task`, under `key`.
pub(super) struct Parked {
    pub(super) task: Arc<TaskLink>,
    pub(super) key: String,
    pub(super) request: InputRequest,
    pub(super) what: &'static str,
}

impl Rounds {
    pub(crate) fn new(responses: Option<InputResponses>, state: Option<String>) -> Rounds {
        Rounds {
            responses,
            state,
            binding: OnceLock::new(),
            bound_to: Mutex::new(None),
            inner: Mutex::new(RoundsInner::default()),
            waiting: Notify::new(),
        }
    }

    /// Binds the state to the caller, the tools and the arguments: kept as
    /// they are (the arguments moved here, not copied), hashed only if the
    /// tool asks.
    pub(crate) fn bind(&self, binding: Binding) {
        *self.bound_to.lock().unwrap_or_else(PoisonError::into_inner) = Some(binding);
    }

    fn binding(&self) -> &[u8] {
        self.binding.get_or_init(|| {
            let bound = self
                .bound_to
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take();
            // Bound before the tool runs, so before any ask.
            let Some(Binding {
                caller,
                called,
                tool,
                args,
            }) = bound
            else {
                return roundtrip::binding("", "", "", &Map::new());
            };
            let args = match &args {
                Value::Object(args) => args,
                _ => &Map::new(),
            };
            roundtrip::binding(&caller.identity(), &called, tool, args)
        })
    }

    /// The answer to the ask `key` wanting `want`, or none yet. The
    /// answers of earlier rounds are opened with `talkback`.
    pub(super) fn find<W: Want>(
        &self,
        talkback: &Talkback,
        key: Option<&str>,
        want: W,
    ) -> Found<W::Answer> {
        let mut inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        let key = match key {
            Some(key) => key.to_owned(),
            None => format!("mcp-light/{}", inner.asks),
        };
        inner.asks += 1;
        if let Some(task) = &inner.task {
            return Found::InTask(Box::new(Parked {
                task: Arc::clone(task),
                key,
                what: want.what(),
                request: want.into_input_request(),
            }));
        }
        if inner.refusal.is_some() {
            return Found::Wait;
        }
        if inner.carried.is_none() {
            let carried = match &self.state {
                None => Some(Carried::default()),
                Some(sealed) => talkback.open(sealed, self.binding()),
            };
            match carried {
                Some(carried) => inner.carried = Some(carried),
                None => {
                    self.refuse(&mut inner, forged_state());
                    return Found::Wait;
                }
            }
        }
        let answer = inner
            .carried
            .as_ref()
            .and_then(|carried| carried.answers.get(&key))
            .or_else(|| self.responses.as_ref().and_then(|r| r.get(&key)))
            .cloned();
        match answer {
            Some(value) => match serde_json::from_value(value.clone()) {
                Ok(answer) => {
                    inner.used.answers.insert(key, value);
                    Found::Answer(answer)
                }
                Err(error) => {
                    let problem = format!(
                        "inputResponses[\"{key}\"] is not an answer to {}: {error}; \
                         send the client's result for that request",
                        want.what()
                    );
                    self.refuse(&mut inner, ErrorData::invalid_params(problem, None));
                    Found::Wait
                }
            },
            None => {
                inner.pending.insert(key, want.into_input_request());
                self.waiting.notify_one();
                Found::Wait
            }
        }
    }

    /// Makes the call the task `link`, unless its tool stopped at an ask
    /// of this round (or the call is refused), which the call answers
    /// instead; decided under the lock the asks take, so no ask falls
    /// between the two.
    pub(crate) fn escalate(&self, link: &Arc<TaskLink>) -> bool {
        let mut inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        if !inner.pending.is_empty() || inner.refusal.is_some() {
            return false;
        }
        inner.task = Some(Arc::clone(link));
        true
    }

    /// Whether the tool stopped at an ask of this round, or the call is
    /// refused.
    pub(crate) fn stopped(&self) -> bool {
        let inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        !inner.pending.is_empty() || inner.refusal.is_some()
    }

    /// The task the call became, if it did.
    pub(crate) fn task(&self) -> Option<Arc<TaskLink>> {
        let inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        inner.task.clone()
    }

    fn refuse(&self, inner: &mut RoundsInner, error: ErrorData) {
        inner.refusal = Some(error);
        self.waiting.notify_one();
    }

    /// Refuses the whole call with `error` (the first refusal stands); the
    /// tool is stopped at the ask that caused it.
    pub(super) fn refuse_call(&self, error: ErrorData) {
        let mut inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        if inner.refusal.is_none() {
            self.refuse(&mut inner, error);
        }
    }

    /// Completes when an ask is left waiting or refused the call.
    pub(crate) fn waiting(&self) -> impl Future<Output = ()> + '_ {
        self.waiting.notified()
    }

    /// The answer of a call whose tool was stopped at its asks: the
    /// input-required result asking for what is missing, with the answers so
    /// far sealed in its `requestState` by `talkback`, or the error that
    /// refuses the call.
    pub(crate) fn input_required(
        &self,
        talkback: &Talkback,
    ) -> Result<InputRequiredResult, ErrorData> {
        let mut inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(refusal) = inner.refusal.take() {
            return Err(refusal);
        }
        let sealed = talkback
            .seal(&inner.used, self.binding())
            .map_err(|error| {
                ErrorData::internal_error(
                    format!("the request state cannot be sealed: {error}"),
                    None,
                )
            })?;
        let pending = std::mem::take(&mut inner.pending);
        Ok(InputRequiredResult::new(Some(pending), Some(sealed)))
    }
}

/// The one error every refused `requestState` answers.
fn forged_state() -> ErrorData {
    ErrorData::invalid_params(
        "the requestState of this tools/call does not verify: it was altered, has expired, \
         or was issued for another caller, tool or arguments; call the tool again without \
         requestState and inputResponses",
        None,
    )
}
