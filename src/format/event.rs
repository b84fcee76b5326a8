//! Command events: `start`, `timeline`, `loop` and `stop` groups.

use serde_json::Value;
use valence::math::Vec3;

use super::problem::{field, index, JsonPointer, Problems};
use super::read::{self, Obj};

/// Who runs an event's commands.
#[derive(Clone, Debug, PartialEq)]
pub enum EventSource {
    /// The initiating player, with that player's own permission level.
    Player,
    /// The server console.
    Server,
    /// The display entity of the named node (`@s` in the commands).
    Node(String),
}

/// Where `~ ~ ~` and `^ ^ ^` are measured from.
#[derive(Clone, Debug, PartialEq)]
pub enum OriginAnchor {
    /// The node's root placement.
    Root,
    /// The named node's current world position.
    Node(String),
}

/// The execution position of an event.
#[derive(Clone, Debug, PartialEq)]
pub struct EventOrigin {
    /// Root or node.
    pub anchor: OriginAnchor,
    /// Added to the anchor, in blocks (default zero).
    pub offset: Vec3,
}

/// One command event.
#[derive(Clone, Debug, PartialEq)]
pub struct CommandEvent {
    /// Who runs the commands.
    pub source: EventSource,
    /// Where they run.
    pub origin: EventOrigin,
    /// The commands, without a leading `/`.
    pub commands: Vec<String>,
}

/// A `timeline` event and its tick.
#[derive(Clone, Debug, PartialEq)]
pub struct TimedEvent {
    /// When, in ticks after the cycle starts (before the duration).
    pub time_ticks: u32,
    /// What runs.
    pub event: CommandEvent,
}

/// The four event groups.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Events {
    /// When playback starts.
    pub start: Vec<CommandEvent>,
    /// At their ticks, in time order.
    pub timeline: Vec<TimedEvent>,
    /// After each repetition completes.
    pub on_loop: Vec<CommandEvent>,
    /// When playback stops.
    pub stop: Vec<CommandEvent>,
}

/// The commands emoted's dispatcher runs. Anything else is refused at load,
/// not discovered at run time.
pub const KNOWN_COMMANDS: &[&str] = &[
    "say",
    "tellraw",
    "title",
    "particle",
    "playsound",
    "stopsound",
    "tp",
    "teleport",
    "gamemode",
    "function",
    "emote",
    "data",
];

/// Checks one command string: nonempty, no leading `/`, a known command.
pub fn check_command(command: &str) -> Result<(), String> {
    let trimmed = command.trim();
    if trimmed.is_empty() {
        return Err("a command must not be empty".to_owned());
    }
    if trimmed.starts_with('/') {
        return Err("commands do not start with `/`".to_owned());
    }
    let mut words = trimmed.split_whitespace();
    let name = words.next().unwrap_or_default();
    if !KNOWN_COMMANDS.contains(&name) {
        return Err(format!(
            "unknown command `{name}`; emoted runs: {}",
            KNOWN_COMMANDS.join(", ")
        ));
    }
    if name == "data" && (words.next() != Some("merge") || words.next() != Some("entity")) {
        return Err("only `data merge entity <target> {...}` is supported".to_owned());
    }
    Ok(())
}

/// Reads `commands`: a nonempty array of command strings, each checked by
/// [`check_command`] (and trimmed).
pub(crate) fn read_commands(
    value: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
) -> Option<Vec<String>> {
    let Value::Array(items) = value else {
        problems.error(pointer, "`commands` must be an array of command strings");
        return None;
    };
    if items.is_empty() {
        problems.error(pointer, "`commands` must list at least one command");
        return None;
    }
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let ip = index(pointer, i);
        if let Some(s) = read::string(item, &ip, problems, "a command") {
            match check_command(s) {
                Ok(()) => out.push(s.trim().to_owned()),
                Err(e) => problems.error(&ip, e),
            }
        }
    }
    (out.len() == items.len()).then_some(out)
}

/// A node reference an event makes, checked once all nodes are known.
pub(crate) struct NodeRef {
    pub(crate) node: String,
    pub(crate) pointer: String,
    /// True for a `source` (must be a display node), false for an `origin`.
    pub(crate) as_source: bool,
}

/// Reads the node an event's `source` (`as_source`) or `origin` names, and
/// keeps the reference to check once all nodes are known.
fn read_node_ref(
    value: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
    what: &str,
    as_source: bool,
    refs: &mut Vec<NodeRef>,
) -> Option<String> {
    let node = read::nonempty_string(value, pointer, problems, what)?;
    refs.push(NodeRef {
        node: node.to_owned(),
        pointer: pointer.render(),
        as_source,
    });
    Some(node.to_owned())
}

fn read_event(
    value: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
    timed: bool,
    refs: &mut Vec<NodeRef>,
) -> Option<(Option<u32>, CommandEvent)> {
    let mut obj = Obj::new(value, pointer, problems, "an event")?;
    let time = if timed {
        obj.req("time", problems)
            .and_then(|(v, p)| read::time(v, &p, problems, "event `time`", 0).map(|t| (t, p)))
    } else {
        obj.forbid("time", problems, "only `timeline` events have a `time`");
        None
    };
    let source = obj.req("source", problems).and_then(|(v, p)| {
        let mut src = Obj::new(v, &p, problems, "`source`")?;
        let ty = src.req_one_of(
            "type",
            problems,
            "source `type`",
            &[("player", 0), ("server", 1), ("node", 2)],
        );
        let node = src.opt("node");
        let result = match (ty, node) {
            (Some(0), None) => Some(EventSource::Player),
            (Some(1), None) => Some(EventSource::Server),
            (Some(2), Some((v, np))) => {
                read_node_ref(v, &np, problems, "source `node`", true, refs).map(EventSource::Node)
            }
            (Some(2), None) => {
                problems.error(&p, "a `node` source requires `node`");
                None
            }
            (Some(_), Some((_, np))) => {
                problems.error(&np, "only a `node` source names a `node`");
                None
            }
            _ => None,
        };
        src.finish(problems, &["type", "node"]);
        result
    });
    let origin = obj.req("origin", problems).and_then(|(v, p)| {
        let mut org = Obj::new(v, &p, problems, "`origin`")?;
        let ty = org.req_one_of(
            "type",
            problems,
            "origin `type`",
            &[("root", false), ("node", true)],
        );
        let node = org.opt("node");
        let anchor = match (ty, node) {
            (Some(false), None) => Some(OriginAnchor::Root),
            (Some(true), Some((v, np))) => {
                read_node_ref(v, &np, problems, "origin `node`", false, refs)
                    .map(OriginAnchor::Node)
            }
            (Some(true), None) => {
                problems.error(&p, "a `node` origin requires `node`");
                None
            }
            (Some(false), Some((_, np))) => {
                problems.error(&np, "a `root` origin does not name a `node`");
                None
            }
            (None, _) => None,
        };
        let offset = match org.opt("offset") {
            Some((v, op)) => read::vec3(v, &op, problems, "origin `offset`"),
            None => Some(Vec3::ZERO),
        };
        org.finish(problems, &["type", "node", "offset"]);
        Some(EventOrigin {
            anchor: anchor?,
            offset: offset?,
        })
    });
    let commands = obj
        .req("commands", problems)
        .and_then(|(v, p)| read_commands(v, &p, problems));
    obj.finish(problems, &["time", "source", "origin", "commands"]);
    let event = CommandEvent {
        source: source?,
        origin: origin?,
        commands: commands?,
    };
    Some((time.map(|(t, _)| t), event))
}

/// Reads `timeline.events`. `duration_ticks` is used for the "before the end" rule.
pub(crate) fn read_events(
    value: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
    duration_ticks: Option<u32>,
    refs: &mut Vec<NodeRef>,
) -> Events {
    let mut events = Events::default();
    let Some(mut obj) = Obj::new(value, pointer, problems, "`events`") else {
        return events;
    };
    for group in ["start", "timeline", "loop", "stop"] {
        let Some((v, p)) = obj.opt(group) else {
            continue;
        };
        let Value::Array(items) = v else {
            problems.error(
                &p,
                format!("the `{group}` event group must be an array of events"),
            );
            continue;
        };
        let mut previous: Option<u32> = None;
        for (i, item) in items.iter().enumerate() {
            let ip = index(&p, i);
            let timed = group == "timeline";
            let Some((time, event)) = read_event(item, &ip, problems, timed, refs) else {
                continue;
            };
            match group {
                "timeline" => {
                    let Some(t) = time else { continue };
                    let tp = field(&ip, "time");
                    if let Some(prev) = previous {
                        if t < prev {
                            problems.error(
                                &tp,
                                format!(
                                    "timeline events must be ordered by time: {t}t follows {prev}t"
                                ),
                            );
                        }
                    }
                    if let Some(d) = duration_ticks {
                        if t >= d {
                            problems.error(&tp, format!("timeline events must occur before the end of the timeline ({d}t), found {t}t"));
                        }
                    }
                    previous = Some(t);
                    events.timeline.push(TimedEvent {
                        time_ticks: t,
                        event,
                    });
                }
                "start" => events.start.push(event),
                "loop" => events.on_loop.push(event),
                _ => events.stop.push(event),
            }
        }
    }
    obj.finish(problems, &["start", "timeline", "loop", "stop"]);
    events
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands() {
        assert!(check_command("say hi").is_ok());
        assert!(check_command("data merge entity @s {Glowing:1b}").is_ok());
        assert!(check_command("/say hi")
            .unwrap_err()
            .contains("do not start with `/`"));
        assert!(check_command("   ").is_err());
        assert!(check_command("kill @a")
            .unwrap_err()
            .contains("unknown command `kill`"));
        assert!(check_command("data get entity @s").is_err());
    }
}
