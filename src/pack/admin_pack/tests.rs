//! Reading admin packs: zips and folders, the path rules, the caps.

use std::io::Write;

use zip::write::SimpleFileOptions;
use zip::ZipWriter;

use super::*;

/// A zip of `entries`, deflated.
pub(crate) fn zip_of(entries: &[(&str, &[u8])]) -> Vec<u8> {
    let mut zip = ZipWriter::new(Cursor::new(Vec::new()));
    for (name, bytes) in entries {
        zip.start_file(*name, SimpleFileOptions::DEFAULT)
            .expect("entry");
        zip.write_all(bytes).expect("write");
    }
    zip.finish().expect("zip").into_inner()
}

fn read_zip(entries: &[(&str, &[u8])], limits: &MergeLimits) -> Result<AdminPack, AdminPackError> {
    AdminPack::from_zip_bytes(Path::new("admin.zip"), &zip_of(entries), limits)
}

/// [`read_zip`] with the default caps, which must accept `entries`.
fn read_ok(entries: &[(&str, &[u8])]) -> AdminPack {
    read_zip(entries, &MergeLimits::default()).expect("a valid pack")
}

const MCMETA: (&str, &[u8]) = (
    "pack.mcmeta",
    br#"{"pack":{"pack_format":15,"description":"x"}}"#,
);

#[test]
fn a_zip_pack_is_read_with_its_files() {
    let pack = read_ok(&[
        MCMETA,
        ("pack.png", b"png"),
        ("assets/a/b.json", b"{}"),
        ("assets/", b""),
    ]);
    assert_eq!(
        pack.paths().collect::<Vec<_>>(),
        ["assets/a/b.json", "pack.png"]
    );
    assert_eq!(pack.file("pack.png"), Some(&b"png"[..]));
    assert_eq!(pack.pack_mcmeta(), MCMETA.1);
    assert_eq!(pack.source(), Path::new("admin.zip"));
}

#[test]
fn entries_outside_the_root_are_refused_with_their_name() {
    for (entry, rule) in [
        ("../evil", "`..` part"),
        ("assets/../../evil", "`..` part"),
        ("/etc/passwd", "absolute"),
        ("C:/evil", "drive letter"),
        ("assets\\evil.png", "`\\`"),
        ("assets//x.png", "empty part"),
        ("../", "`..` part"),
    ] {
        let err = read_zip(&[MCMETA, (entry, b"x")], &MergeLimits::default())
            .expect_err(entry)
            .to_string();
        assert!(
            err.starts_with(&format!("admin.zip: entry `{entry}` is refused: ")),
            "{err}"
        );
        assert!(err.contains(rule), "{entry}: {err}");
    }
}

#[test]
fn packs_over_a_cap_are_refused() {
    let small = MergeLimits {
        max_entry_count: 3,
        max_file_bytes: 100,
        max_total_bytes: 10_000,
    };
    let big = vec![b'a'; 101];
    let err = read_zip(&[MCMETA, ("assets/big.txt", &big)], &small).expect_err("per file");
    assert!(
        err.to_string()
            .contains("entry `assets/big.txt` holds more than 100 bytes, the cap on one file"),
        "{err}"
    );
    let err = read_zip(
        &[MCMETA, ("a.txt", b"1"), ("b.txt", b"2"), ("c.txt", b"3")],
        &small,
    )
    .expect_err("count");
    assert!(
        matches!(err, AdminPackError::TooManyEntries { limit: 3, .. }),
        "{err}"
    );
    // 10,000 zeros deflate to a few dozen bytes: the zip is under the
    // total cap, what it holds is not.
    let total = MergeLimits {
        max_entry_count: 10,
        max_file_bytes: 20_000,
        max_total_bytes: 1000,
    };
    let bomb = zip_of(&[MCMETA, ("a.txt", b"a"), ("zeros.bin", &[0u8; 10_000])]);
    assert!(
        (bomb.len() as u64) < total.max_total_bytes,
        "{}",
        bomb.len()
    );
    let err = AdminPack::from_zip_bytes(Path::new("bomb.zip"), &bomb, &total).expect_err("total");
    assert!(
        err.to_string()
            .starts_with("bomb.zip: the files up to `zeros.bin` hold more than 1000 bytes"),
        "{err}"
    );
    // The zip file itself over the total cap is refused unread.
    let err =
        AdminPack::from_zip_bytes(Path::new("big.zip"), &[0u8; 1001], &total).expect_err("file");
    assert!(
        matches!(
            err,
            AdminPackError::FileTooLarge {
                size_bytes: 1001,
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn a_zip_that_lies_about_a_size_stops_at_the_cap() {
    let limits = MergeLimits {
        max_file_bytes: 1000,
        ..MergeLimits::default()
    };
    let mut bytes = zip_of(&[MCMETA, ("zeros.bin", &[0u8; 5000])]);
    // Rewrite the declared uncompressed size (local header and central
    // directory) to 10 bytes.
    let patch = |bytes: &mut Vec<u8>, signature: &[u8], offset: usize| {
        let at = bytes
            .windows(4)
            .enumerate()
            .filter(|(_, w)| *w == signature)
            .map(|(i, _)| i)
            .nth(1)
            .expect("second entry");
        bytes[at + offset..at + offset + 4].copy_from_slice(&10u32.to_le_bytes());
    };
    patch(&mut bytes, b"PK\x03\x04", 22);
    patch(&mut bytes, b"PK\x01\x02", 24);
    let err =
        AdminPack::from_zip_bytes(Path::new("liar.zip"), &bytes, &limits).expect_err("refused");
    let text = err.to_string();
    assert!(text.starts_with("liar.zip: entry `zeros.bin`"), "{text}");
}

#[test]
fn a_zip_without_pack_mcmeta_at_the_root_says_where_it_is() {
    let err = read_zip(
        &[("MyPack/pack.mcmeta", MCMETA.1), ("MyPack/pack.png", b"p")],
        &MergeLimits::default(),
    )
    .expect_err("nested")
    .to_string();
    assert!(
        err.contains("admin.zip has no pack.mcmeta at its root"),
        "{err}"
    );
    assert!(err.contains("`MyPack/`"), "{err}");
    let err = read_zip(&[("x.txt", b"1")], &MergeLimits::default()).expect_err("none");
    assert!(matches!(err, AdminPackError::NoMcmeta { ref hint, .. } if hint.is_empty()));
}

#[test]
fn what_is_not_a_zip_or_is_missing_is_an_error_naming_it() {
    let err = AdminPack::from_zip_bytes(
        Path::new("notes.zip"),
        b"just text",
        &MergeLimits::default(),
    )
    .expect_err("not a zip");
    assert!(
        err.to_string().starts_with("notes.zip is not a zip file"),
        "{err}"
    );
    let missing = Path::new("/nonexistent/emoted-admin-pack.zip");
    let err = AdminPack::read(missing, &MergeLimits::default()).expect_err("missing");
    assert!(err.to_string().contains("emoted-admin-pack.zip"), "{err}");
    assert!(err.to_string().contains("resource_pack.merge"), "{err}");
}

#[test]
fn a_folder_pack_is_read_like_a_zip() {
    let dir = std::env::temp_dir().join(format!("emoted-admin-folder-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let write = |path: &str, bytes: &[u8]| {
        let file = dir.join(path);
        std::fs::create_dir_all(file.parent().expect("parent")).expect("dirs");
        std::fs::write(file, bytes).expect("write");
    };
    write("pack.mcmeta", MCMETA.1);
    write("pack.png", b"png");
    write("assets/minecraft/textures/block/stone.png", b"stone");
    let pack = AdminPack::read(&dir, &MergeLimits::default()).expect("read");
    let zipped = read_ok(&[
        MCMETA,
        ("assets/minecraft/textures/block/stone.png", b"stone"),
        ("pack.png", b"png"),
    ]);
    assert_eq!(
        pack.paths().collect::<Vec<_>>(),
        zipped.paths().collect::<Vec<_>>()
    );
    assert_eq!(pack.pack_mcmeta(), zipped.pack_mcmeta());
    assert_eq!(pack.file_count(), 2);
    write("assets/big.bin", &[1u8; 200]);
    let err = AdminPack::read(
        &dir,
        &MergeLimits {
            max_file_bytes: 100,
            ..MergeLimits::default()
        },
    )
    .expect_err("over the cap");
    assert!(
        err.to_string()
            .contains("entry `assets/big.bin` holds more"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
