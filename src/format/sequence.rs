//! The schema 4 Sequence file: linear chains of Animations and two-player
//! Sequences (`participants` and one `await_partner` step).
//!
//! Choices where `anchor-sequence-format.md` is silent: `repeat` is at least
//! 1; a `wait` is at least 1 tick; weights are whole numbers of at least 1;
//! a random array is either all bare ids or all id/weight pairs; every step
//! needs at least one real Animation candidate; the offer of an
//! `await_partner` step is one Animation id.

use serde_json::Value;
use valence::math::Vec3;

use super::animation::{finish_document, read_header, read_metadata, Metadata};
use super::ident::EmoteId;
use super::problem::{field, index, JsonPointer, Problems, Root};
use super::read::{self, Obj};
use super::settings::{read_cooldown, read_player, PlayerSettings};

/// `settings` of a Sequence: these replace the steps' own.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SequenceSettings {
    /// The only cooldown that applies, keyed on the Sequence id.
    pub cooldown_ticks: u32,
    /// Player behaviour for the whole Sequence.
    pub player: PlayerSettings,
}

/// A reference to an Animation, with where it was written (for cross-file errors).
#[derive(Clone, Debug, PartialEq)]
pub struct AnimationRef {
    /// The referenced id (never a control id).
    pub id: EmoteId,
    /// JSON pointer of the reference in the Sequence file.
    pub pointer: String,
}

/// One candidate of a random choice.
#[derive(Clone, Debug, PartialEq)]
pub enum Candidate {
    /// Play this Animation.
    Animation(AnimationRef),
    /// `emote:continue`: use up this repetition with nothing played.
    Continue,
    /// `emote:break`: end this step's repetitions.
    Break,
}

/// What an Animation step plays.
#[derive(Clone, Debug, PartialEq)]
pub enum EmoteChoice {
    /// Always this Animation.
    Single(AnimationRef),
    /// Picked again on every repetition; weights are relative (uniform arrays get 1 each).
    Random(Vec<(Candidate, u32)>),
}

impl EmoteChoice {
    /// Every Animation this choice can play.
    pub fn animations(&self) -> Vec<&AnimationRef> {
        match self {
            EmoteChoice::Single(r) => vec![r],
            EmoteChoice::Random(list) => list
                .iter()
                .filter_map(|(c, _)| match c {
                    Candidate::Animation(r) => Some(r),
                    _ => None,
                })
                .collect(),
        }
    }
}

/// One step of a Sequence.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    /// Play an Animation (or a random pick) `repeat` times.
    Play {
        /// Which Animation.
        emote: EmoteChoice,
        /// Repetitions, at least 1.
        repeat: u32,
        /// Ticks spent moving shared nodes from the previous pose, before every repetition.
        transition_ticks: u32,
    },
    /// Hold the previous pose.
    Wait {
        /// How long, at least 1 tick.
        duration_ticks: u32,
    },
    /// Two-player: play the offer until a partner joins or the timeout runs out.
    AwaitPartner {
        /// The offer Animation the initiator plays while waiting.
        offer: AnimationRef,
        /// How long to wait, at least 1 tick.
        timeout_ticks: u32,
        /// Played after a partner joins.
        matched: Vec<Step>,
        /// Played when nobody joins.
        timeout: Vec<Step>,
    },
}

/// How a relative position is measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PositionFrame {
    /// `~ ~ ~`: world axes from the scene origin.
    Relative,
    /// `^ ^ ^`: left, up, forward of the initiator's horizontal facing.
    Local,
}

/// One angle of a participant rotation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Angle {
    /// An absolute angle in degrees.
    Absolute(f32),
    /// `~N`: added to the initiator's angle.
    Relative(f32),
}

/// Where a participant stands and faces.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Placement {
    /// `~` or `^` coordinates.
    pub frame: PositionFrame,
    /// The three offsets in blocks.
    pub offset: Vec3,
    /// Yaw.
    pub yaw: Angle,
    /// Pitch.
    pub pitch: Angle,
}

/// `participants` of a two-player Sequence.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Participants {
    /// The initiator's placement.
    pub initiator: Placement,
    /// The partner's placement.
    pub partner: Placement,
}

/// One line per step, as `/emote info` shows a Sequence: ids, weights as
/// percentages of their step, repeats, transitions and waits; the branches
/// of an `await_partner` step indented under it.
pub fn describe_steps(steps: &[Step]) -> Vec<String> {
    fn choice(emote: &EmoteChoice) -> String {
        match emote {
            EmoteChoice::Single(r) => r.id.to_string(),
            EmoteChoice::Random(list) => {
                let total: u32 = list.iter().map(|(_, w)| *w).sum::<u32>().max(1);
                let parts: Vec<String> = list
                    .iter()
                    .map(|(c, w)| {
                        let name = match c {
                            Candidate::Animation(r) => r.id.to_string(),
                            Candidate::Continue => "emote:continue".to_owned(),
                            Candidate::Break => "emote:break".to_owned(),
                        };
                        format!("{name} {}%", f64::from(*w) * 100.0 / f64::from(total))
                    })
                    .collect();
                format!("one of {}", parts.join(", "))
            }
        }
    }
    fn lines(steps: &[Step], indent: &str, out: &mut Vec<String>) {
        for (i, step) in steps.iter().enumerate() {
            let n = i + 1;
            match step {
                Step::Play {
                    emote,
                    repeat,
                    transition_ticks,
                } => {
                    let mut line = format!("{indent}{n}. {}", choice(emote));
                    if *repeat > 1 {
                        line.push_str(&format!(" ×{repeat}"));
                    }
                    if *transition_ticks > 0 {
                        line.push_str(&format!(", {transition_ticks}t transition"));
                    }
                    out.push(line);
                }
                Step::Wait { duration_ticks } => {
                    out.push(format!("{indent}{n}. wait {duration_ticks}t"));
                }
                Step::AwaitPartner {
                    offer,
                    timeout_ticks,
                    matched,
                    timeout,
                } => {
                    out.push(format!(
                        "{indent}{n}. offer {} and wait up to {timeout_ticks}t for a partner",
                        offer.id
                    ));
                    out.push(format!("{indent}   when someone joins:"));
                    lines(matched, &format!("{indent}     "), out);
                    out.push(format!("{indent}   when nobody does:"));
                    lines(timeout, &format!("{indent}     "), out);
                }
            }
        }
    }
    let mut out = Vec::new();
    lines(steps, "", &mut out);
    out
}

/// A validated schema 4 Sequence, as read from a file.
#[derive(Clone, Debug, PartialEq)]
pub struct SequenceFile {
    /// The emote id.
    pub id: EmoteId,
    /// Name, description, extras.
    pub metadata: Metadata,
    /// Cooldown and player settings.
    pub settings: SequenceSettings,
    /// The steps.
    pub steps: Vec<Step>,
    /// Present exactly for two-player Sequences.
    pub participants: Option<Participants>,
}

impl SequenceFile {
    /// True for a two-player Sequence.
    pub fn is_two_player(&self) -> bool {
        self.participants.is_some()
    }

    /// Every Animation reference in the file, offer and branches included.
    pub fn references(&self) -> Vec<&AnimationRef> {
        fn walk<'a>(steps: &'a [Step], out: &mut Vec<&'a AnimationRef>) {
            for step in steps {
                match step {
                    Step::Play { emote, .. } => out.extend(emote.animations()),
                    Step::Wait { .. } => {}
                    Step::AwaitPartner {
                        offer,
                        matched,
                        timeout,
                        ..
                    } => {
                        out.push(offer);
                        walk(matched, out);
                        walk(timeout, out);
                    }
                }
            }
        }
        let mut out = Vec::new();
        walk(&self.steps, &mut out);
        out
    }
}

/// Reads a Sequence from parsed JSON, recording every problem.
pub(crate) fn read_sequence(root: &Value, problems: &mut Problems) -> Option<SequenceFile> {
    let mut obj = Obj::new(root, &Root, problems, "a Sequence file")?;
    let id = read_header(&mut obj, problems, "sequence");
    let metadata = read_metadata(&mut obj, problems);
    let mut settings = SequenceSettings::default();
    match obj.opt("settings") {
        Some((v, p)) => {
            if let Some(mut s) = Obj::new(v, &p, problems, "`settings`") {
                settings.cooldown_ticks = read_cooldown(&mut s, problems);
                settings.player = read_player(&mut s, problems);
                s.finish(problems, &["cooldown", "player"]);
            }
        }
        None => problems.error("", "missing required field `settings`"),
    }
    let participants = obj
        .opt("participants")
        .and_then(|(v, p)| read_participants(v, &p, problems));
    let participants_given = obj.has("participants");
    let mut steps = Vec::new();
    if let Some((v, p)) = obj.req("steps", problems) {
        let has_await = v
            .as_array()
            .is_some_and(|a| a.iter().any(|s| s.get("await_partner").is_some()));
        if has_await {
            match v.as_array() {
                Some(a) if a.len() == 1 => {}
                _ => problems.error(
                    &p,
                    "a two-player Sequence has exactly one step, and it is `await_partner`",
                ),
            }
            if !participants_given {
                problems.error(
                    "",
                    "a two-player Sequence (with `await_partner`) requires `participants`",
                );
            }
        } else if participants_given {
            problems.error("/participants", "`participants` is only for two-player Sequences, whose single step is `await_partner`");
        }
        steps = read_steps(v, &p, problems, true).unwrap_or_default();
    }
    finish_document(obj, problems, &["participants", "steps"]);
    if problems.has_errors() {
        return None;
    }
    Some(SequenceFile {
        id: id?,
        metadata,
        settings,
        steps,
        participants,
    })
}

fn read_steps(
    value: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
    top_level: bool,
) -> Option<Vec<Step>> {
    let Value::Array(items) = value else {
        problems.error(pointer, "steps must be an array");
        return None;
    };
    if items.is_empty() {
        problems.error(pointer, "a step list must not be empty");
        return None;
    }
    let mut out = Vec::with_capacity(items.len());
    let mut ok = true;
    for (i, item) in items.iter().enumerate() {
        let p = index(pointer, i);
        match read_step(item, &p, problems, top_level) {
            Some(step) => {
                if let Step::Wait { .. } = step {
                    let wp = field(&p, "wait");
                    if i == 0 {
                        problems.error(
                            &wp,
                            "a wait step holds the previous pose, so it cannot be the first step",
                        );
                    }
                    if i + 1 == items.len() {
                        problems.error(&wp, "a wait step cannot be the last step");
                    }
                    if matches!(out.last(), Some(Step::Wait { .. })) {
                        problems.error(&wp, "a wait step cannot follow another wait step");
                    }
                }
                out.push(step);
            }
            None => ok = false,
        }
    }
    ok.then_some(out)
}

fn read_step(
    value: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
    top_level: bool,
) -> Option<Step> {
    let mut obj = Obj::new(value, pointer, problems, "a step")?;
    let kinds = ["emote", "wait", "await_partner"]
        .iter()
        .filter(|k| obj.has(k))
        .count();
    if kinds != 1 {
        problems.error(
            pointer,
            "a step has exactly one of `emote`, `wait` or `await_partner`",
        );
        obj.finish(
            problems,
            &[
                "emote",
                "wait",
                "await_partner",
                "repeat",
                "transition",
                "matched",
                "timeout",
            ],
        );
        return None;
    }
    let step = if let Some((v, p)) = obj.opt("emote") {
        let emote = read_choice(v, &p, problems);
        let repeat = match obj.opt("repeat") {
            Some((v, rp)) => read::count(v, &rp, problems, "`repeat`", 1),
            None => Some(1),
        };
        let transition = match obj.opt("transition") {
            Some((v, tp)) => read::time(v, &tp, problems, "`transition`", 0),
            None => Some(0),
        };
        obj.finish(problems, &["emote", "repeat", "transition"]);
        Step::Play {
            emote: emote?,
            repeat: repeat?,
            transition_ticks: transition?,
        }
    } else if let Some((v, p)) = obj.opt("wait") {
        let duration = read::time(v, &p, problems, "`wait`", 1);
        obj.forbid("repeat", problems, "a wait step cannot have `repeat`");
        obj.forbid(
            "transition",
            problems,
            "a wait step cannot have `transition`",
        );
        obj.finish(problems, &["wait"]);
        Step::Wait {
            duration_ticks: duration?,
        }
    } else {
        let (v, p) = obj.opt("await_partner")?;
        if !top_level {
            problems.error(
                &p,
                "`matched` and `timeout` branches cannot contain another `await_partner`",
            );
        }
        obj.forbid(
            "repeat",
            problems,
            "the `await_partner` step cannot have `repeat`",
        );
        let mut offer = None;
        let mut timeout_ticks = None;
        if let Some(mut a) = Obj::new(v, &p, problems, "`await_partner`") {
            offer = a.req("emote", problems).and_then(|(v, ep)| {
                let text = read::string(v, &ep, problems, "the offer `emote` (one Animation id)")?;
                let id = parse_ref(text, &ep, problems)?;
                if id.id.is_control() {
                    problems.error(
                        &ep,
                        "control ids (emote:continue, emote:break) are not allowed in the offer",
                    );
                    return None;
                }
                Some(id)
            });
            timeout_ticks = a
                .req("timeout", problems)
                .and_then(|(v, tp)| read::time(v, &tp, problems, "`timeout`", 1));
            a.finish(problems, &["emote", "timeout"]);
        }
        let matched = obj
            .req("matched", problems)
            .and_then(|(v, mp)| read_steps(v, &mp, problems, false));
        let timeout = obj
            .req("timeout", problems)
            .and_then(|(v, tp)| read_steps(v, &tp, problems, false));
        obj.finish(problems, &["await_partner", "matched", "timeout"]);
        Step::AwaitPartner {
            offer: offer?,
            timeout_ticks: timeout_ticks?,
            matched: matched?,
            timeout: timeout?,
        }
    };
    Some(step)
}

fn parse_ref(
    text: &str,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
) -> Option<AnimationRef> {
    match EmoteId::parse(text) {
        Ok(id) => Some(AnimationRef {
            id,
            pointer: pointer.render(),
        }),
        Err(e) => {
            problems.error(pointer, e);
            None
        }
    }
}

fn read_choice(
    value: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
) -> Option<EmoteChoice> {
    match value {
        Value::String(s) => {
            let r = parse_ref(s, pointer, problems)?;
            if r.id.is_control() {
                problems.error(
                    pointer,
                    format!("`{}` may appear only inside a random-selection array", r.id),
                );
                return None;
            }
            Some(EmoteChoice::Single(r))
        }
        Value::Array(items) if !items.is_empty() => {
            let weighted = items.iter().any(Value::is_number);
            let mut list = Vec::new();
            let mut ok = true;
            if weighted {
                if items.len() % 2 != 0 {
                    problems.error(
                        pointer,
                        "a weighted choice alternates id and weight: [\"a:x\", 40, \"a:y\", 60]",
                    );
                    return None;
                }
                let mut total: u64 = 0;
                for (i, pair) in items.chunks(2).enumerate() {
                    let ip = index(pointer, 2 * i);
                    let wp = index(pointer, 2 * i + 1);
                    let candidate = match &pair[0] {
                        Value::String(s) => parse_ref(s, &ip, problems).map(candidate_of),
                        _ => {
                            problems.error(&ip, "a weighted choice alternates id and weight; expected an id here (do not mix bare ids with weighted ones)");
                            None
                        }
                    };
                    let weight = if pair[1].is_number() {
                        read::count(&pair[1], &wp, problems, "a weight", 1)
                    } else {
                        problems.error(&wp, "a weighted choice alternates id and weight; expected a whole-number weight here (do not mix bare ids with weighted ones)");
                        None
                    };
                    if let Some(w) = weight {
                        total += u64::from(w);
                    }
                    match (candidate, weight) {
                        (Some(c), Some(w)) => list.push((c, w)),
                        _ => ok = false,
                    }
                }
                if ok && total != 100 {
                    problems.error(
                        pointer,
                        format!("weights must total exactly 100, found {total}"),
                    );
                    ok = false;
                }
            } else {
                for (i, item) in items.iter().enumerate() {
                    let ip = index(pointer, i);
                    match item {
                        Value::String(s) => match parse_ref(s, &ip, problems) {
                            Some(r) => list.push((candidate_of(r), 1)),
                            None => ok = false,
                        },
                        other => {
                            problems.error(
                                &ip,
                                format!(
                                    "a random choice lists Animation ids, found {}",
                                    read::kind_of(other)
                                ),
                            );
                            ok = false;
                        }
                    }
                }
            }
            if ok
                && !list
                    .iter()
                    .any(|(c, _)| matches!(c, Candidate::Animation(_)))
            {
                problems.error(pointer, "a random choice needs at least one real Animation besides emote:continue and emote:break");
                ok = false;
            }
            ok.then_some(EmoteChoice::Random(list))
        }
        _ => {
            problems.error(
                pointer,
                "`emote` must be an Animation id or a random-selection array",
            );
            None
        }
    }
}

fn candidate_of(r: AnimationRef) -> Candidate {
    match r.id.as_str() {
        super::ident::CONTINUE_ID => Candidate::Continue,
        super::ident::BREAK_ID => Candidate::Break,
        _ => Candidate::Animation(r),
    }
}

fn read_participants(
    value: &Value,
    pointer: &dyn JsonPointer,
    problems: &mut Problems,
) -> Option<Participants> {
    let mut obj = Obj::new(value, pointer, problems, "`participants`")?;
    let read_one = |obj: &mut Obj<'_>, key: &str, problems: &mut Problems| -> Option<Placement> {
        let (v, p) = obj.req(key, problems)?;
        let mut o = Obj::new(v, &p, problems, "a participant placement")?;
        let position = o.req("position", problems).and_then(|(v, pp)| {
            let text = read::string(v, &pp, problems, "`position`")?;
            parse_position(text)
                .map_err(|e| problems.error(&pp, e))
                .ok()
        });
        let rotation = o.req("rotation", problems).and_then(|(v, rp)| {
            let text = read::string(v, &rp, problems, "`rotation`")?;
            parse_rotation(text)
                .map_err(|e| problems.error(&rp, e))
                .ok()
        });
        o.finish(problems, &["position", "rotation"]);
        let (frame, offset) = position?;
        let (yaw, pitch) = rotation?;
        Some(Placement {
            frame,
            offset,
            yaw,
            pitch,
        })
    };
    let initiator = read_one(&mut obj, "initiator", problems);
    let partner = read_one(&mut obj, "partner", problems);
    obj.finish(problems, &["initiator", "partner"]);
    Some(Participants {
        initiator: initiator?,
        partner: partner?,
    })
}

/// `token` as a finite number.
fn finite_number(token: &str) -> Option<f32> {
    token.parse::<f32>().ok().filter(|v| v.is_finite())
}

/// The number after a `~` or `^` (none: 0).
fn parse_offset(token: &str) -> Option<f32> {
    if token.is_empty() {
        return Some(0.0);
    }
    finite_number(token)
}

/// `text` split at white space into exactly `N` words.
fn words<const N: usize>(text: &str) -> Option<[&str; N]> {
    let words: Vec<&str> = text.split_whitespace().collect();
    words.try_into().ok()
}

/// Parses `~ ~ ~` or `^ ^ ^` coordinates (each with an optional number).
pub fn parse_position(text: &str) -> Result<(PositionFrame, Vec3), String> {
    let err = || {
        format!("`{text}` must be three coordinates that all use `~` (relative to the scene origin) or all use `^` (local to the initiator's facing), e.g. \"^ ^ ^1.2\"")
    };
    let tokens: [&str; 3] = words(text).ok_or_else(err)?;
    let frame = match tokens[0].chars().next() {
        Some('~') => PositionFrame::Relative,
        Some('^') => PositionFrame::Local,
        _ => return Err(err()),
    };
    let prefix = tokens[0].chars().next().unwrap_or('~');
    let mut out = [0.0f32; 3];
    for (i, token) in tokens.iter().enumerate() {
        let rest = token.strip_prefix(prefix).ok_or_else(err)?;
        out[i] = parse_offset(rest).ok_or_else(err)?;
    }
    Ok((frame, Vec3::from_array(out)))
}

/// Parses `<yaw> <pitch>`, each an absolute angle or `~`-relative.
pub fn parse_rotation(text: &str) -> Result<(Angle, Angle), String> {
    let err = || {
        format!("`{text}` must be `<yaw> <pitch>`, each a number of degrees or `~`-relative, e.g. \"~180 0\"")
    };
    let [yaw, pitch] = words(text).ok_or_else(err)?;
    let angle = |t: &str| -> Option<Angle> {
        match t.strip_prefix('~') {
            Some(rest) => parse_offset(rest).map(Angle::Relative),
            None => finite_number(t).map(Angle::Absolute),
        }
    };
    Ok((angle(yaw).ok_or_else(err)?, angle(pitch).ok_or_else(err)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions() {
        assert_eq!(
            parse_position("~ ~ ~").unwrap(),
            (PositionFrame::Relative, Vec3::ZERO)
        );
        assert_eq!(
            parse_position("^ ^ ^1.2").unwrap(),
            (PositionFrame::Local, Vec3::new(0.0, 0.0, 1.2))
        );
        assert_eq!(
            parse_position("~1 ~-2 ~0.5").unwrap().1,
            Vec3::new(1.0, -2.0, 0.5)
        );
        for bad in ["~ ^ ~", "1 2 3", "~ ~", "~ ~ ~ ~", "~a ~ ~", ""] {
            assert!(parse_position(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn rotations() {
        assert_eq!(
            parse_rotation("~180 0").unwrap(),
            (Angle::Relative(180.0), Angle::Absolute(0.0))
        );
        assert_eq!(
            parse_rotation("~ ~").unwrap(),
            (Angle::Relative(0.0), Angle::Relative(0.0))
        );
        for bad in ["~", "^ 0", "a b", "1 2 3"] {
            assert!(parse_rotation(bad).is_err(), "{bad}");
        }
    }
}

#[cfg(test)]
pub(crate) mod fixtures;

#[cfg(test)]
mod describe_tests {
    use super::fixtures::{play, reference};
    use super::*;

    #[test]
    fn steps_read_as_a_player_would_want() {
        let steps = vec![
            play("a:sit", 1, 0),
            Step::Play {
                emote: EmoteChoice::Random(vec![
                    (Candidate::Animation(reference("a:x")), 45),
                    (Candidate::Animation(reference("a:y")), 45),
                    (Candidate::Continue, 5),
                    (Candidate::Break, 5),
                ]),
                repeat: 6,
                transition_ticks: 5,
            },
            Step::Wait { duration_ticks: 20 },
        ];
        assert_eq!(
            describe_steps(&steps),
            vec![
                "1. a:sit".to_owned(),
                "2. one of a:x 45%, a:y 45%, emote:continue 5%, emote:break 5% ×6, 5t transition"
                    .to_owned(),
                "3. wait 20t".to_owned(),
            ]
        );
        let duo = vec![Step::AwaitPartner {
            offer: reference("a:offer"),
            timeout_ticks: 200,
            matched: vec![Step::Wait { duration_ticks: 3 }],
            timeout: vec![Step::Wait { duration_ticks: 4 }],
        }];
        assert_eq!(
            describe_steps(&duo),
            vec![
                "1. offer a:offer and wait up to 200t for a partner".to_owned(),
                "   when someone joins:".to_owned(),
                "     1. wait 3t".to_owned(),
                "   when nobody does:".to_owned(),
                "     1. wait 4t".to_owned(),
            ]
        );
    }
}
