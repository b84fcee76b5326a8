//! The words and colours of the feedback: the bar while an emote plays and
//! the line that says why it ended. Pure text builders, no ECS.

use valence::prelude::*;

use crate::format::node::Participant;
use crate::server::events::EndReason;

/// The hint every playing bar ends with.
pub(super) const STOP_HINT: &str = " · /emote stop";

/// What a player's action bar says while an emote plays for them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Bar<'a> {
    /// A solo playback.
    Playing {
        /// The emote's name.
        name: &'a str,
    },
    /// A two-player offer nobody has joined yet.
    Waiting {
        /// The emote's name.
        name: &'a str,
        /// Seconds until it times out.
        seconds_left: u32,
    },
    /// The offerer's side when someone joined and the match is pending.
    Joined {
        /// The emote's name.
        name: &'a str,
        /// Who joined.
        joiner: &'a str,
    },
    /// The joiner's side of the same.
    Joining {
        /// The emote's name.
        name: &'a str,
        /// Whose offer.
        initiator: &'a str,
    },
    /// Both players of a matched two-player Sequence.
    With {
        /// The emote's name.
        name: &'a str,
        /// The other player.
        other: &'a str,
    },
    /// The timeout branch of an offer nobody joined.
    NobodyJoined {
        /// The emote's name.
        name: &'a str,
    },
}

/// The action bar text of `bar`: the emote's name first, then where it
/// is, then how to stop it (a joiner has nothing to stop yet).
pub(super) fn bar_text(bar: Bar) -> Text {
    let name = |name: &str| name.to_owned().color(Color::GOLD);
    let status = |words: String| words.color(Color::YELLOW);
    let hint = || STOP_HINT.color(Color::GRAY);
    let root = Text::text("");
    match bar {
        Bar::Playing { name: n } => root + name(n) + hint(),
        Bar::Waiting {
            name: n,
            seconds_left,
        } => root + name(n) + status(format!(" · waiting for a partner, {seconds_left}s")) + hint(),
        Bar::Joined { name: n, joiner } => {
            root + name(n) + status(format!(" · {joiner} is joining")) + hint()
        }
        Bar::Joining { name: n, initiator } => {
            root + status(format!("Joining {initiator}'s ")) + name(n) + status("…".to_owned())
        }
        Bar::With { name: n, other } => root + name(n) + status(format!(" with {other}")) + hint(),
        Bar::NobodyJoined { name: n } => {
            root + name(n) + status(" · nobody joined".to_owned()) + hint()
        }
    }
}

/// The action bar text when an emote ended: "Wave finished", or "Wave
/// stopped: you moved" with [`EndReason::describe`] for `told`.
pub(super) fn ended_text(name: &str, reason: &EndReason, told: Participant) -> Text {
    let root = Text::text("") + name.to_owned().color(Color::GOLD);
    match reason {
        EndReason::Finished => root + " finished".color(Color::GRAY),
        _ => root + format!(" stopped: {}", reason.describe(told)).color(Color::GRAY),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;
    use crate::playback::StopReason;

    /// The text as the client shows it, without styles.
    fn plain(text: &Text) -> String {
        fn walk(node: &Value, out: &mut String) {
            if let Some(text) = node.get("text").and_then(Value::as_str) {
                out.push_str(text);
            }
            for child in node
                .get("extra")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                walk(child, out);
            }
        }
        let json: Value = serde_json::from_str(&text.to_string()).expect("JSON");
        let mut out = String::new();
        walk(&json, &mut out);
        out
    }

    #[test]
    fn every_playing_bar_names_the_emote_and_how_to_stop_it() {
        let cases = [
            (Bar::Playing { name: "Wave" }, "Wave · /emote stop"),
            (
                Bar::Waiting {
                    name: "Handshake",
                    seconds_left: 7,
                },
                "Handshake · waiting for a partner, 7s · /emote stop",
            ),
            (
                Bar::Joined {
                    name: "Handshake",
                    joiner: "bob",
                },
                "Handshake · bob is joining · /emote stop",
            ),
            (
                Bar::Joining {
                    name: "Handshake",
                    initiator: "alice",
                },
                "Joining alice's Handshake…",
            ),
            (
                Bar::With {
                    name: "Handshake",
                    other: "alice",
                },
                "Handshake with alice · /emote stop",
            ),
            (
                Bar::NobodyJoined { name: "Handshake" },
                "Handshake · nobody joined · /emote stop",
            ),
        ];
        for (bar, expected) in cases {
            assert_eq!(plain(&bar_text(bar)), expected);
        }
        // No piece of a bar is clickable: it is an action bar.
        let json = bar_text(Bar::Playing { name: "Wave" }).to_string();
        assert!(!json.contains("clickEvent"), "{json}");
    }

    #[test]
    fn an_end_says_why_to_each_participant() {
        let moved = EndReason::Condition(StopReason::Moved);
        let cases = [
            (
                &EndReason::Finished,
                Participant::Initiator,
                "Wave finished",
            ),
            (&EndReason::Finished, Participant::Partner, "Wave finished"),
            (
                &EndReason::Stopped,
                Participant::Initiator,
                "Wave stopped: you stopped it",
            ),
            (&moved, Participant::Initiator, "Wave stopped: you moved"),
            (
                &moved,
                Participant::Partner,
                "Wave stopped: your partner moved",
            ),
            (
                &EndReason::Condition(StopReason::Damaged),
                Participant::Initiator,
                "Wave stopped: you were hit",
            ),
            (
                &EndReason::Reloaded { removed: false },
                Participant::Partner,
                "Wave stopped: the emote was reloaded: its file changed",
            ),
        ];
        for (reason, told, expected) in cases {
            assert_eq!(plain(&ended_text("Wave", reason, told)), expected);
        }
    }

    #[test]
    fn a_partners_reason_reads_the_other_way_round() {
        let reasons = [
            EndReason::Finished,
            EndReason::Stopped,
            EndReason::StoppedBy {
                name: "Admin".to_owned(),
            },
            EndReason::StoppedByCommand,
            EndReason::Replaced,
            EndReason::Condition(StopReason::Jumped),
            EndReason::Left,
            EndReason::Failed("x is NaN".to_owned()),
            EndReason::Died,
            EndReason::LeftWorld,
            EndReason::Reloaded { removed: true },
        ];
        for reason in reasons {
            let own = reason.describe(Participant::Initiator);
            let other = reason.describe(Participant::Partner);
            assert!(!own.is_empty() && !other.is_empty(), "{reason:?}");
            let flipped = EndReason::of_partner(reason.clone());
            assert_eq!(
                flipped.describe(Participant::Initiator),
                other,
                "{reason:?}"
            );
            assert_eq!(flipped.describe(Participant::Partner), own, "{reason:?}");
            // A reason that names a person names the right one.
            if own.contains("you") {
                assert!(other.contains("your partner"), "{reason:?}: {other}");
            }
        }
        assert_eq!(
            EndReason::of_partner(EndReason::Left).describe(Participant::Initiator),
            "your partner left"
        );
        assert_eq!(
            EndReason::StoppedBy {
                name: "Admin".to_owned()
            }
            .describe(Participant::Partner),
            "Admin stopped it"
        );
    }
}
