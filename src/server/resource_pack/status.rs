//! What a player's client did with the offered pack, as a small state
//! machine the server feeds with the client's answers.
//!
//! ```text
//!            Accepted               SuccessfullyLoaded
//! Offered ─────────────▶ Accepted ─────────────────────▶ Loaded
//!    │ │                    │
//!    │ │ SuccessfullyLoaded │ FailedDownload
//!    │ └──────────▶ Loaded  └──────────────▶ Failed
//!    │ Declined ──▶ Declined      (FailedDownload from Offered too)
//! ```
//!
//! A vanilla 1.20.1 client answers `Accepted` and then `SuccessfullyLoaded`
//! or `FailedDownload`, or only `Declined`. Anything else (an answer after
//! the last one, a second `Accepted`, an answer to no offer) changes nothing
//! and is reported as unexpected. A new offer (after a reload built a new
//! pack) starts again from `Offered`.
//!
//! What the server says back is [`reply`]'s: nothing for `Accepted` and
//! `Loaded`, one chat line for `Failed` and for `Declined`, and a kick for
//! `Declined` when the pack is required (vanilla's rule: a failed download
//! is not a refusal, so it is never kicked).

use valence::prelude::*;
use valence::protocol::packets::play::ResourcePackStatusC2s;

/// Where a player is with the offered pack. Inserted on each player the
/// pack is offered to; later features draw skin-bound parts only for
/// [`PackStatus::Loaded`] and fall back to heads otherwise.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
pub enum PackStatus {
    /// Offered; no answer yet (a client that never answers stays here).
    Offered,
    /// The player accepted; the download is under way.
    Accepted,
    /// The pack is downloaded, checked against its SHA-1 and applied.
    Loaded,
    /// The player declined it.
    Declined,
    /// The download or the SHA-1 check failed, or the pack did not apply.
    Failed,
}

impl PackStatus {
    /// The status after the client's `answer`, or `None` when the answer
    /// makes no sense now (see the module docs) and changes nothing.
    pub fn after(self, answer: ResourcePackStatusC2s) -> Option<PackStatus> {
        use PackStatus::*;
        use ResourcePackStatusC2s as A;
        match (self, answer) {
            (Offered, A::Accepted) => Some(Accepted),
            (Offered | Accepted, A::SuccessfullyLoaded) => Some(Loaded),
            (Offered | Accepted, A::FailedDownload) => Some(Failed),
            (Offered, A::Declined) => Some(Declined),
            _ => None,
        }
    }

    /// Whether the player's client shows the pack.
    pub fn is_loaded(self) -> bool {
        self == PackStatus::Loaded
    }
}

/// What the server does for a player who reached a status.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reply {
    /// Nothing to say.
    None,
    /// One chat line to that player.
    Chat(&'static str),
    /// Disconnect that player with this message.
    Kick(&'static str),
}

/// The chat line for a declined pack.
pub const DECLINED_LINE: &str = "You declined emoted's resource pack, so emotes show heads \
     instead of your own skin. To get it, edit this server in your server list, set Server \
     Resource Packs to Enabled or Prompt, and join again.";

/// The chat line for a pack that failed to download or apply.
pub const FAILED_LINE: &str = "emoted's resource pack could not be downloaded or applied, so \
     emotes show heads instead of your own skin. Ask an admin to check that \
     resource_pack.public_url is reachable from your machine.";

/// The chat line a player gets the first time their client loads the pack
/// (once per connection): where to turn when the parts look wrong, which
/// no server can detect (a shader pack or a skull mod).
pub const LOADED_LINE: &str = "emoted's resource pack is loaded: emotes show players' bodies \
     in their own skins. If body parts look broken (a shader pack or a skull mod can do that), \
     /emote parts off shows heads instead.";

/// The kick message for a declined pack that the server requires.
pub const REQUIRED_KICK: &str = "This server requires its resource pack: emotes are drawn with \
     it. Edit this server in your server list, set Server Resource Packs to Enabled or Prompt, \
     and join again.";

/// What to do for a player who just reached `status`, when the pack is
/// `required` or not.
pub fn reply(status: PackStatus, required: bool) -> Reply {
    match status {
        PackStatus::Declined if required => Reply::Kick(REQUIRED_KICK),
        PackStatus::Declined => Reply::Chat(DECLINED_LINE),
        PackStatus::Failed => Reply::Chat(FAILED_LINE),
        PackStatus::Offered | PackStatus::Accepted | PackStatus::Loaded => Reply::None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use PackStatus::*;
    use ResourcePackStatusC2s as A;

    #[test]
    fn every_status_and_answer() {
        // (now, answer, next); None: unexpected, nothing changes.
        let table = [
            (Offered, A::Accepted, Some(Accepted)),
            (Offered, A::SuccessfullyLoaded, Some(Loaded)),
            (Offered, A::FailedDownload, Some(Failed)),
            (Offered, A::Declined, Some(Declined)),
            (Accepted, A::Accepted, None),
            (Accepted, A::SuccessfullyLoaded, Some(Loaded)),
            (Accepted, A::FailedDownload, Some(Failed)),
            (Accepted, A::Declined, None),
        ];
        for (now, answer, next) in table {
            assert_eq!(now.after(answer), next, "{now:?} + {answer:?}");
        }
        // Loaded, declined and failed are final: no answer moves them.
        let answers = [
            A::Accepted,
            A::SuccessfullyLoaded,
            A::FailedDownload,
            A::Declined,
        ];
        for now in [Loaded, Declined, Failed] {
            for answer in answers {
                assert_eq!(now.after(answer), None, "{now:?} + {answer:?}");
            }
        }
        assert!(Loaded.is_loaded());
        assert!(!Accepted.is_loaded());
    }

    #[test]
    fn declining_a_required_pack_kicks_and_nothing_else_does() {
        for required in [false, true] {
            assert_eq!(reply(Offered, required), Reply::None);
            assert_eq!(reply(Accepted, required), Reply::None);
            assert_eq!(reply(Loaded, required), Reply::None);
            assert_eq!(reply(Failed, required), Reply::Chat(FAILED_LINE));
        }
        assert_eq!(reply(Declined, false), Reply::Chat(DECLINED_LINE));
        assert_eq!(reply(Declined, true), Reply::Kick(REQUIRED_KICK));
        for line in [DECLINED_LINE, FAILED_LINE] {
            assert!(line.contains("heads"), "says what the player sees: {line}");
        }
        assert!(REQUIRED_KICK.contains("requires"));
    }
}
