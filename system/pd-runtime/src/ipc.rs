//! Message words, and the bridge to `pd-idl`: a channel as a client stub's transport,
//! and a generated `dispatch` served from [`Handler::protected`](crate::Handler).

use core::fmt::{self, Write};

use pd_idl::wire::{Caller, MSG_WORDS, Message, ServerDied, Transport};

use crate::{Channel, MessageInfo, backend};

/// Sets message word `i` (`microkit_mr_set`). Panics if `i` is `MSG_WORDS` (64) or more.
pub fn set_mr(i: usize, value: u64) {
    assert!(i < MSG_WORDS, "message word {i}; there are {MSG_WORDS}");
    backend::set_mr(i, value)
}

/// Reads message word `i` (`microkit_mr_get`). Panics if `i` is `MSG_WORDS` (64) or more.
pub fn get_mr(i: usize) -> u64 {
    assert!(i < MSG_WORDS, "message word {i}; there are {MSG_WORDS}");
    backend::get_mr(i)
}

/// Puts `msg` into the message words and returns its info.
pub fn load(msg: &Message) -> MessageInfo {
    let words = msg.words.min(MSG_WORDS);
    for (i, w) in msg.mrs[..words].iter().enumerate() {
        set_mr(i, *w);
    }
    MessageInfo::new(msg.label, words)
}

/// The message described by `info`, read out of the message words.
pub fn store(info: MessageInfo) -> Message {
    let mut msg = Message::empty(info.label());
    msg.words = info.count();
    for i in 0..msg.words {
        msg.mrs[i] = get_mr(i);
    }
    msg
}

/// A channel with `pp="true"` as the transport of a `pd-idl` client stub:
/// `pd_idl::power::Client::new(PpcTransport(POWER))`.
#[derive(Clone, Copy, Debug)]
pub struct PpcTransport(pub Channel);

impl Transport for PpcTransport {
    fn call(&mut self, msg: &Message) -> Result<Message, ServerDied> {
        let info = self.0.pp_call(load(msg))?;
        Ok(store(info))
    }
}

/// Answers the call in the message words with `dispatch`, for use in
/// [`Handler::protected`](crate::Handler::protected):
/// `ipc::serve(ch, msg, |caller, m| power::dispatch(&mut self.server, caller, m))`.
/// The caller is identified by the channel id this PD uses for it.
pub fn serve(
    channel: Channel,
    info: MessageInfo,
    dispatch: impl FnOnce(Caller, &Message) -> Message,
) -> MessageInfo {
    let call = store(info);
    let reply = dispatch(Caller(u32::from(channel.index())), &call);
    load(&reply)
}

/// As [`serve`], for a call that carries secrets (a key in the call or in the reply, as
/// a key store's imports and fetches and a keyed open do): the call's words are
/// overwritten as soon as they are copied out, and the copies of call and reply this
/// makes are wiped before it returns. What is left is the reply in the message words
/// (the caller's to wipe once read; a server overwrites its own at its next event) and
/// whatever `dispatch`'s frames left on the stack: see [`scrub_stack`].
pub fn serve_secret(
    channel: Channel,
    info: MessageInfo,
    dispatch: impl FnOnce(Caller, &Message) -> Message,
) -> MessageInfo {
    use zeroize::Zeroize;
    let mut call = store(info);
    wipe_words(0, call.words);
    let mut reply = dispatch(Caller(u32::from(channel.index())), &call);
    call.mrs.zeroize();
    let info = load(&reply);
    reply.mrs.zeroize();
    info
}

/// The reply `protected` is about to return carries secrets (a key store's key): on the
/// host, where a reply waits in a page its caller maps until the caller has read it,
/// the runtime clears it then; on seL4 the kernel copies it, and the PD overwrites its
/// own message words at its next event ([`wipe_words`]).
pub fn reply_is_secret() {
    backend::reply_is_secret()
}

/// Overwrites message words `from..to` (a reply's, once read; a call's, once copied).
pub fn wipe_words(from: usize, to: usize) {
    for i in from..to.min(MSG_WORDS) {
        backend::set_mr(i, 0);
    }
}

/// Bytes of stack below the caller's frame that [`scrub_stack`] overwrites: more than
/// the frames of a keyed call (decoding, the key store's checks, a session's open) take.
/// Unoptimised frames are several times larger: at 4 KiB a debug build of the CPU
/// Cipher driver kept a decoded copy of a fetched key below the scrubbed part
/// (system-tests' `keys` test reads the PD's memory and found it), and at 16 KiB the
/// CPU Aead driver kept an AES-GCM key its serving pass had expanded, 48 KiB below the
/// stack's top; 64 KiB leaves none. (Debug builds run on the host only, whose stacks
/// are the host's.)
pub const SCRUB_BYTES: usize = if cfg!(all(debug_assertions, not(target_os = "none"))) {
    65536
} else {
    4096
};

/// Overwrites the [`SCRUB_BYTES`] of stack below the caller's frame, where the frames of
/// the calls it just made lay: the compiler's copies of a key (a decoded argument, a
/// value moved into a table) that no code of ours names, and so cannot wipe. Called
/// after a call that handled key material, before the PD waits again.
#[inline(never)]
pub fn scrub_stack() {
    use zeroize::Zeroize;
    // Volatile writes: not elided, though nothing reads them; 16 bytes each, since
    // zeroize writes element by element (4 KiB by bytes took ~1 us, a tenth of what a
    // serving pass of sixteen 1 KiB AES-GCM requests costs the CPU driver).
    let mut below = [0u128; SCRUB_BYTES / 16];
    below.zeroize();
    core::hint::black_box(&below);
    crate::backend::scrubbed_to(below.as_ptr() as usize);
}

/// Formats to the debug console in one write, so lines from several PDs do not mix.
pub fn debug_fmt(args: fmt::Arguments<'_>) {
    write_line(args, crate::debug_puts);
}

/// Formats to the console ([`crate::console_puts`]) in one write.
pub fn console_fmt(args: fmt::Arguments<'_>) {
    write_line(args, |s| {
        crate::console_puts(s);
    });
}

/// Formats `args` and a newline into a buffer of 256 bytes and hands it to `put` in as
/// few writes as it takes (one, for a line that fits), each valid UTF-8: for
/// [`debug_fmt`] and [`console_fmt`] (the console queue keeps the writes of one line
/// together: each but the last goes on with the next).
pub fn write_line(args: fmt::Arguments<'_>, put: impl FnMut(&str)) {
    struct Line<P> {
        buf: [u8; 256],
        len: usize,
        put: P,
    }
    impl<P: FnMut(&str)> Write for Line<P> {
        fn write_str(&mut self, s: &str) -> fmt::Result {
            for &b in s.as_bytes() {
                if self.len == self.buf.len() {
                    self.flush();
                }
                self.buf[self.len] = b;
                self.len += 1;
            }
            Ok(())
        }
    }
    impl<P: FnMut(&str)> Line<P> {
        fn flush(&mut self) {
            // Split only at a char boundary so each write is valid UTF-8.
            let mut end = self.len;
            while end > 0 && core::str::from_utf8(&self.buf[..end]).is_err() {
                end -= 1;
            }
            if let Ok(s) = core::str::from_utf8(&self.buf[..end]) {
                (self.put)(s);
            }
            self.buf.copy_within(end..self.len, 0);
            self.len -= end;
        }
    }
    let mut line = Line {
        buf: [0; 256],
        len: 0,
        put,
    };
    let _ = line.write_fmt(args);
    let _ = line.write_str("\n");
    line.flush();
}
