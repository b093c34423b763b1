#![cfg_attr(target_os = "none", no_std, no_main)]
//! Calls the toy Power server through pd-idl's generated client stub over a PPC
//! channel, checking every answer: a grant, an idempotent re-acquire, a release, a
//! release of a grant not held, a raw call with an unknown label, a call during which
//! the server crashes (ServerRestarted), and, once the server is back, a fresh grant.
//! Exits 0 when all hold; panics (a fault) at the first that does not.
use pd_idl::power::{Client, Engine, PowerError};
use pd_idl::wire::{CallError, PROTOCOL_BASE, ProtocolError};
use pd_runtime::ipc::PpcTransport;
use pd_runtime::{Channel, ChannelSet, Handler, MessageInfo, debug_println, set_mr};

const POWER: Channel = Channel::new(0);

enum Phase {
    First,
    AfterCrash,
}

struct PowerClient {
    phase: Phase,
    power: Client<PpcTransport>,
}

impl PowerClient {
    fn first(&mut self) {
        let grant = self.power.acquire(Engine::OmapAes).expect("acquire");
        debug_println!(
            "client: acquire(OmapAes) -> generation {}",
            grant.generation
        );
        let again = self.power.acquire(Engine::OmapAes).expect("acquire again");
        assert_eq!(
            again, grant,
            "re-acquiring a held engine gives the same grant"
        );
        self.power.release(grant).expect("release");
        debug_println!("client: release -> ok");
        let twice = self.power.release(grant);
        assert_eq!(twice, Err(CallError::Server(PowerError::NotHeld)));
        debug_println!("client: release again -> {twice:?}");

        // A raw call the interface does not have: the generated dispatch refuses it.
        for i in 0..3 {
            set_mr(i, 0xdead_0000 + i as u64);
        }
        let reply = POWER
            .pp_call(MessageInfo::new(99, 3))
            .expect("server alive");
        assert_eq!(
            reply.label(),
            PROTOCOL_BASE + ProtocolError::UnknownOp as u64
        );
        debug_println!(
            "client: raw label 99 -> protocol error {}",
            reply.label() - PROTOCOL_BASE
        );

        let crashed = self.power.acquire(Engine::VirtioCrypto);
        assert_eq!(crashed, Err(CallError::Server(PowerError::ServerRestarted)));
        debug_println!("client: acquire(VirtioCrypto) -> {crashed:?} (server died mid-call)");
        self.phase = Phase::AfterCrash;
    }

    /// Called on each "ready" from a (re)started server until a call goes through.
    fn after_crash(&mut self) {
        match self.power.acquire(Engine::OmapAes) {
            Ok(grant) => {
                assert_eq!(grant.generation, 1, "a restarted server starts afresh");
                debug_println!(
                    "client: after restart, acquire -> generation {}",
                    grant.generation
                );
                pd_runtime::exit(0);
            }
            Err(CallError::Server(PowerError::ServerRestarted)) => {
                debug_println!("client: server still restarting; waiting for it");
            }
            Err(e) => panic!("after restart: {e:?}"),
        }
    }
}

impl Handler for PowerClient {
    fn notified(&mut self, _: ChannelSet) {
        match self.phase {
            Phase::First => self.first(),
            Phase::AfterCrash => self.after_crash(),
        }
    }
}

fn init() -> PowerClient {
    PowerClient {
        phase: Phase::First,
        power: Client::new(PpcTransport(POWER)),
    }
}

pd_runtime::protection_domain!(init);
