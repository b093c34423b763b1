//! How a driver shares its engine's time between clients: each client's engine work so
//! far (`queued_service::Service::work`, byte-equivalents), and from it who is served
//! next. The client given the least goes first; one more than [`QUANTUM`] ahead of the
//! least served waits while that one has work (and goes as soon as nobody else has any:
//! the engine never idles for fairness' sake); a client back from idle is put at most a
//! quantum behind, so idle time is not credit. While clients contend, a turn takes about
//! a quantum of work. This is deficit round robin with the quantum as both the turn and
//! the credit bound.

/// How far, in [`Service::work`](queued_service::Service::work)'s byte-equivalents, a
/// client with work may run ahead of the least served one before it waits for it, and
/// the most a turn takes while clients contend: one large request (16 KiB) and a job's
/// fixed cost. Served by jobs instead (round robin), a client flooding 16 KiB requests
/// cut one with 1 KiB requests beside it to 3-4% of its throughput alone through the
/// CPU driver (issue 32); by engine time it keeps about half.
pub const QUANTUM: u64 = (16 << 10) + queued_service::JOB_WORK;

/// Engine work given to each of `N` clients.
#[derive(Clone, Debug)]
pub struct Shares<const N: usize> {
    used: [u64; N],
}

impl<const N: usize> Default for Shares<N> {
    fn default() -> Self {
        Shares { used: [0; N] }
    }
}

impl<const N: usize> Shares<N> {
    /// A new pass over the clients with work (`busy`): one that was idle comes back at
    /// most [`QUANTUM`] behind the most served of them.
    pub fn begin(&mut self, busy: &[bool; N]) {
        let top = (0..N).filter(|&k| busy[k]).map(|k| self.used[k]).max();
        let floor = top.unwrap_or(0).saturating_sub(QUANTUM);
        for k in (0..N).filter(|&k| busy[k]) {
            self.used[k] = self.used[k].max(floor);
        }
    }

    /// This round's order: the clients with work that may be served, least served
    /// first, and the work a turn may take. Empty when nobody has work.
    pub fn round(&self, busy: &[bool; N]) -> ([Option<usize>; N], u64) {
        let mut order = [None; N];
        let Some(least) = (0..N).filter(|&k| busy[k]).map(|k| self.used[k]).min() else {
            return (order, u64::MAX);
        };
        let mut ks: [usize; N] = core::array::from_fn(|k| k);
        ks.sort_unstable_by_key(|&k| (self.used[k], k));
        let mut n = 0;
        for k in ks {
            if busy[k] && self.used[k] <= least + QUANTUM {
                order[n] = Some(k);
                n += 1;
            }
        }
        let contended = busy.iter().filter(|b| **b).count() > 1;
        (order, if contended { QUANTUM } else { u64::MAX })
    }

    /// Client `k`'s turn took `work`.
    pub fn charge(&mut self, k: usize, work: u64) {
        self.used[k] = self.used[k].saturating_add(work);
    }

    pub fn used(&self, k: usize) -> u64 {
        self.used[k]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rounds of a flooder whose every turn is one 16 KiB job beside a light client
    /// whose turn is `light` work: the work each got.
    fn contend(light: u64, rounds: usize) -> (u64, u64) {
        let mut s = Shares::<2>::default();
        let busy = [true, true];
        s.begin(&busy);
        for _ in 0..rounds {
            let (order, turn) = s.round(&busy);
            assert_eq!(turn, QUANTUM, "contended: a turn is a quantum");
            for k in order.into_iter().flatten() {
                s.charge(k, if k == 0 { light } else { QUANTUM });
            }
        }
        (s.used(0), s.used(1))
    }

    #[test]
    fn backlogged_clients_get_equal_work_whatever_their_job_sizes() {
        for light in [80, 320, 1088, 4160] {
            let (l, f) = contend(light, 4000);
            let share = l as f64 / (l + f) as f64;
            assert!(
                (0.45..=0.55).contains(&share),
                "light {light}: share {share:.3}"
            );
        }
    }

    #[test]
    fn a_client_far_ahead_waits_only_while_another_has_work() {
        let mut s = Shares::<2>::default();
        s.charge(1, 10 * QUANTUM);
        let (order, _) = s.round(&[true, true]);
        assert_eq!(
            order,
            [Some(0), None],
            "the flooder waits for the light one"
        );
        let (order, turn) = s.round(&[false, true]);
        assert_eq!(order, [Some(1), None], "alone it is served at once");
        assert_eq!(turn, u64::MAX, "and without a turn's bound");
    }

    #[test]
    fn idle_time_is_not_credit() {
        let mut s = Shares::<2>::default();
        s.charge(1, 100 * QUANTUM);
        s.begin(&[true, true]);
        assert_eq!(s.used(0), 99 * QUANTUM, "back at most a quantum behind");
        assert_eq!(s.used(1), 100 * QUANTUM);
        // Not moved when it is not back.
        let mut t = Shares::<2>::default();
        t.charge(1, 100 * QUANTUM);
        t.begin(&[false, true]);
        assert_eq!(t.used(0), 0);
    }

    #[test]
    fn nobody_with_work_is_an_empty_round() {
        let s = Shares::<3>::default();
        assert_eq!(s.round(&[false; 3]).0, [None; 3]);
    }
}
