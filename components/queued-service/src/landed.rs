//! What finished in flight, as a value: the jobs an interrupt or the watchdog ended,
//! each with the client it answers and the answers it owes, built when read.

use pd_idl::wire::Caller;
use segment_list::Parts;

use crate::{Interface, MAX_IN_FLIGHT};

/// One job that ended in flight.
pub struct LandedJob<I: Interface> {
    /// The client its answers go to; `None` if it was cut off meanwhile.
    pub to: Option<Caller>,
    /// The requests it carried: (id, bytes) each.
    pub parts: Parts,
    pub result: Result<I::Done, I::Error>,
}

impl<I: Interface> LandedJob<I> {
    /// The answers, one per request the job carried, in order.
    pub fn answers(&self) -> impl Iterator<Item = I::Response> + '_ {
        answers::<I>(&self.parts, &self.result)
    }
}

/// The answers to the requests `parts` of a job that ended with `result`, in order.
pub(crate) fn answers<'r, I: Interface>(
    parts: &'r Parts,
    result: &'r Result<I::Done, I::Error>,
) -> impl Iterator<Item = I::Response> + 'r {
    let list = parts.as_slice();
    let last = list.len().saturating_sub(1);
    list.iter()
        .enumerate()
        .map(move |(i, &(id, bytes))| I::answer(id, bytes, result, i == last))
}

/// The jobs that ended at one interrupt (or at the watchdog): at most one per place in
/// the engine.
pub struct Landed<I: Interface> {
    jobs: [Option<LandedJob<I>>; MAX_IN_FLIGHT],
}

impl<I: Interface> Default for Landed<I> {
    fn default() -> Self {
        Landed {
            jobs: [const { None }; MAX_IN_FLIGHT],
        }
    }
}

impl<I: Interface> Landed<I> {
    pub(crate) fn push(&mut self, job: LandedJob<I>) {
        if let Some(free) = self.jobs.iter_mut().find(|j| j.is_none()) {
            *free = Some(job);
        }
    }

    /// How many jobs ended, answered or not: each freed a place in the engine.
    pub fn count(&self) -> usize {
        self.jobs.iter().flatten().count()
    }

    pub fn jobs(&self) -> impl Iterator<Item = &LandedJob<I>> {
        self.jobs.iter().flatten()
    }

    /// Every answer owed, with the client it goes to (none for a client cut off).
    pub fn answers(&self) -> impl Iterator<Item = (Caller, I::Response)> + '_ {
        self.jobs()
            .filter_map(|j| j.to.map(|to| (to, j)))
            .flat_map(|(to, j)| j.answers().map(move |r| (to, r)))
    }
}
