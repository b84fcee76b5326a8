use std::io::Cursor;
use std::sync::{Arc, Mutex};

use valence::prelude::*;

use super::console::start_console;
use super::*;
use crate::format::content::plain_text;
use crate::server::commands::EmoteCommand;
use crate::server::syntax::CommandError;

#[test]
fn operator_lines_parse_with_or_without_a_slash() {
    assert_eq!(parse_operator_command("list"), Ok(OperatorCommand::List));
    assert_eq!(parse_operator_command("/LIST "), Ok(OperatorCommand::List));
    assert_eq!(parse_operator_command("stop"), Ok(OperatorCommand::Stop));
    assert_eq!(parse_operator_command("help"), Ok(OperatorCommand::Help));
    assert_eq!(
        parse_operator_command("say  hello  there "),
        Ok(OperatorCommand::Say {
            message: "hello  there".to_owned()
        })
    );
    assert_eq!(
        parse_operator_command("reload"),
        Ok(OperatorCommand::Reload)
    );
    assert_eq!(
        parse_operator_command("emote reload"),
        Ok(OperatorCommand::Reload),
        "one reload, whichever way it is typed"
    );
    assert_eq!(
        parse_operator_command("emote play example:wave Alex"),
        Ok(OperatorCommand::Emote(EmoteCommand::Play {
            id: "example:wave".to_owned(),
            target: Some("Alex".to_owned())
        }))
    );
}

#[test]
fn bad_operator_lines_say_what_is_wrong() {
    assert!(matches!(
        parse_operator_command("   "),
        Err(CommandError::Empty { .. })
    ));
    let unknown = parse_operator_command("op Alex").expect_err("unknown");
    assert!(unknown.to_string().contains("`op`"), "{unknown}");
    assert!(unknown.to_string().contains("list, say"), "{unknown}");
    let extra = parse_operator_command("stop now").expect_err("extra");
    assert!(extra.to_string().contains("`now`"), "{extra}");
    let say = parse_operator_command("say").expect_err("no message");
    assert!(say.to_string().contains("message"), "{say}");
    assert!(parse_operator_command("emote dance").is_err());
}

#[test]
fn plain_text_drops_colours_and_keeps_every_word() {
    let text = Text::text("") + "Emotes".color(Color::GOLD) + " · " + "wave".bold();
    assert_eq!(plain_text(&text), "Emotes · wave");
}

/// A writer the test can read while the console writes.
#[derive(Clone, Default)]
struct Shared(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Shared {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().expect("lock").extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn the_console_queues_each_line_and_prints_its_answer_then_ends_with_its_input() {
    let inbox = OperatorInbox::default();
    let output = Shared::default();
    let input = Cursor::new(b"list\n\n\xff\xfe\nsay hi\n".to_vec());
    let console = start_console(inbox.sender(), input, output.clone()).expect("thread");
    // Answer what arrives, as the tick would.
    let mut answered = Vec::new();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while answered.len() < 2 && std::time::Instant::now() < deadline {
        for line in inbox.drain() {
            assert_eq!(line.source, OperatorSource::Console);
            answered.push(line.text.clone());
            let _ = line.reply.send(format!("answer to {}", line.text));
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    console
        .join()
        .expect("the console ends at the end of its input");
    assert_eq!(answered, ["list", "say hi"], "the empty line is skipped");
    let printed = String::from_utf8(output.0.lock().expect("lock").clone()).expect("text");
    assert_eq!(
        printed,
        "answer to list\nThat line is not UTF-8 text; type a command such as `help`.\nanswer to say hi\n"
    );
}

#[test]
fn a_console_on_closed_input_ends_at_once() {
    let inbox = OperatorInbox::default();
    let console =
        start_console(inbox.sender(), Cursor::new(Vec::new()), Shared::default()).expect("thread");
    console.join().expect("ends");
    assert!(inbox.drain().is_empty());
}
