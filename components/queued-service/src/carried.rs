//! A session's engine context, carried by the job that works on it.

use pd_idl::wire::Caller;

use crate::{Sessions, Step};

/// A session whose engine keeps state between its requests (a hash's running state, a
/// MAC's inner and outer states, a key schedule): what a job in flight carries a copy of.
pub trait Carries {
    type Context: Clone;
    fn context(&mut self) -> &mut Self::Context;
}

/// The session a job names and, once its engine goes on without finishing at once, a
/// copy of that session's engine context. The engine advances the copy at each
/// interrupt, and [`Carried::hand_back`] gives it to the session when the job ends: a
/// session closed meanwhile keeps nothing of the job, and one reopened in the same slot
/// never sees another job's state.
pub struct Carried<C> {
    pub session: u32,
    ctx: Option<C>,
}

impl<C: Clone> Carried<C> {
    pub const fn new() -> Self {
        Carried {
            session: 0,
            ctx: None,
        }
    }

    /// The job now names `session` and carries nothing (a check reuses the job).
    pub fn name(&mut self, session: u32) {
        self.session = session;
        self.ctx = None;
    }

    /// Starts the job through `start`, on the session its check found (looked up again:
    /// a lookup failing here is `gone`). A job left `Pending` carries the session's
    /// context from then on.
    pub fn start<S, T, E>(
        &mut self,
        sessions: &mut Sessions<S>,
        caller: Caller,
        gone: E,
        start: impl FnOnce(&mut S) -> Step<T, E>,
    ) -> Step<T, E>
    where
        S: Carries<Context = C>,
    {
        let Ok(session) = sessions.get_mut(caller, self.session) else {
            return Step::Done(Err(gone));
        };
        let step = start(session);
        if matches!(step, Step::Pending) {
            self.ctx = Some(session.context().clone());
        }
        step
    }

    /// Advances the carried context through `interrupt`; a job that carries none was
    /// never left pending, so an interrupt for it is the engine's `fault`.
    pub fn interrupt<T, E>(
        &mut self,
        fault: E,
        interrupt: impl FnOnce(&mut C) -> Step<T, E>,
    ) -> Step<T, E> {
        match &mut self.ctx {
            Some(ctx) => interrupt(ctx),
            None => Step::Done(Err(fault)),
        }
    }

    /// Gives the context the engine advanced back to `session` (nothing, for a job that
    /// finished when it started: the engine worked on the session's own context).
    pub fn hand_back(&mut self, session: &mut impl Carries<Context = C>) {
        if let Some(ctx) = self.ctx.take() {
            *session.context() = ctx;
        }
    }
}

impl<C: Clone> Default for Carried<C> {
    fn default() -> Self {
        Self::new()
    }
}
