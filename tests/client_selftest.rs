//! The test client's own check: `tests/client/selftest.js` feeds bot.js's
//! metadata decoder entity_metadata packets built byte by byte as valence
//! writes them for 1.20.1 (display entities, interaction, base fields) and
//! checks the names and values the emote tests rely on.

mod common;

use std::process::Command;

#[test]
fn bot_js_names_and_decodes_display_entity_metadata() {
    common::ensure_client_installed();
    let out = Command::new("node")
        .arg("tests/client/selftest.js")
        .current_dir(common::crate_root())
        .output()
        .expect("run node");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "selftest.js failed ({}):\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains(" passed, 0 failed"), "{stdout}");
}
