//! Fuzz target `velocity`: the payload of a client's answer to Velocity's
//! player-info request (modern forwarding), after its signature.
//!
//! The answer is `signature[32]` then the signed fields, and a signature
//! that does not verify ends the reading at once, so the bytes are the
//! signed fields: the target signs them with a fixed secret (HMAC-SHA256,
//! as Velocity does) and gives
//! [`emoted::server::gateway::forwarding::parse_velocity`] the whole
//! answer, for a client that logged in as [`USERNAME`]. The bytes as they
//! are (a forged signature) and "not understood" are given too. The
//! contract is no panic: bad bytes give a `Refusal`.
#![no_main]

use emoted::server::gateway::forwarding::parse_velocity;
use hmac::{Hmac, Mac};
use libfuzzer_sys::fuzz_target;
use sha2::Sha256;

/// The forwarding secret both sides are configured with.
const SECRET: &[u8] = b"fuzz-forwarding-secret";

/// The name the client logged in with (the seeds forward the same one).
const USERNAME: &str = "Steve";

/// `fields` preceded by their HMAC-SHA256 under [`SECRET`].
fn signed(fields: &[u8]) -> Vec<u8> {
    let Ok(mut mac) = <Hmac<Sha256> as Mac>::new_from_slice(SECRET) else {
        return fields.to_vec();
    };
    mac.update(fields);
    let mut answer = mac.finalize().into_bytes().to_vec();
    answer.extend_from_slice(fields);
    answer
}

fuzz_target!(|fields: &[u8]| {
    for answer in [Some(signed(fields)), Some(fields.to_vec()), None] {
        if let Err(refusal) = parse_velocity(answer.as_deref(), USERNAME, SECRET) {
            let _ = refusal.to_string();
            let _ = refusal.client_message();
        }
    }
});
