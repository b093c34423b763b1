//! The interface's calls (`open_session`, `close_session`) over a driver's engine and
//! session table: what a Digest PD entry hands to `pd_idl::digest::dispatch`.

use crate::{DigestEngine, Sessions};
use pd_idl::digest::{Algorithm, DigestError, HashPath, Server};
use pd_idl::wire::Caller;

/// A driver's engine and sessions, borrowed for one call.
pub struct Calls<'a, E: DigestEngine> {
    pub engine: &'a mut E,
    pub sessions: &'a mut Sessions<E::Context>,
}

impl<E: DigestEngine> Server for Calls<'_, E> {
    fn open_session(
        &mut self,
        caller: Caller,
        algorithm: Algorithm,
        path: HashPath,
    ) -> Result<u32, DigestError> {
        self.sessions.open(caller, algorithm, path, self.engine)
    }

    fn close_session(&mut self, caller: Caller, session: u32) -> Result<(), DigestError> {
        self.sessions.close(caller, session)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{DigestStep, Job};
    use pd_idl::digest::{Client, dispatch};
    use pd_idl::wire::{CallError, Message, ServerDied, Transport};

    /// An engine that takes every algorithm on the `Auto` path and hashes nothing.
    struct AutoOnly;

    impl DigestEngine for AutoOnly {
        type Context = ();
        fn open(&mut self, _: usize, _: Algorithm, path: HashPath) -> Result<(), DigestError> {
            match path {
                HashPath::Auto => Ok(()),
                _ => Err(DigestError::UnsupportedPath),
            }
        }
        fn start(&mut self, _: &mut (), _: &Job<'_>) -> DigestStep {
            DigestStep::Done(Ok(None))
        }
        fn interrupt(&mut self, _: &mut (), _: &Job<'_>) -> DigestStep {
            DigestStep::Pending
        }
        fn cancel(&mut self, _: &Job<'_>) {}
    }

    /// A PPC straight into the server, as caller `Caller(3)`.
    struct Ppc<'a>(Calls<'a, AutoOnly>);

    impl Transport for Ppc<'_> {
        fn call(&mut self, msg: &Message) -> Result<Message, ServerDied> {
            Ok(dispatch(&mut self.0, Caller(3), msg))
        }
    }

    #[test]
    fn calls_reach_the_table_through_the_wire() {
        let (mut engine, mut sessions) = (AutoOnly, Sessions::default());
        let mut client = Client::new(Ppc(Calls {
            engine: &mut engine,
            sessions: &mut sessions,
        }));
        let id = client
            .open_session(Algorithm::Sha1, HashPath::Auto)
            .unwrap();
        assert_eq!(
            client.open_session(Algorithm::Sha1, HashPath::Copy),
            Err(CallError::Server(DigestError::UnsupportedPath))
        );
        client.close_session(id).unwrap();
        assert_eq!(
            client.close_session(id),
            Err(CallError::Server(DigestError::UnknownSession))
        );
        assert_eq!(sessions.open_count(), 0);
    }
}
