//! Tests of the reading of a file as text and its writing back.

use std::io::{Read, Write};

use super::*;

fn round_trip(bytes: &[u8], want: Encoding, text: &str) {
    let t = decode(bytes).expect("decodes");
    assert_eq!(t.parts.len(), 1);
    assert_eq!(t.parts[0].encoding, want);
    assert_eq!(t.joined(), text);
    assert_eq!(encode(&t), bytes, "written back as it came");
}

#[test]
fn reads_and_writes_back_every_text_encoding() {
    round_trip(b"plain\n", Encoding::Utf8, "plain\n");
    round_trip(b"log\0with nul\n", Encoding::Utf8, "log\0with nul\n");
    round_trip(b"\xef\xbb\xbfbom", Encoding::Utf8Bom, "bom");
    round_trip(b"caf\xe9 na\xefve\n", Encoding::Latin1, "café naïve\n");
    let le: Vec<u8> = "pw=x\n"
        .encode_utf16()
        .flat_map(|u| u.to_le_bytes())
        .collect();
    round_trip(
        &[&[0xff, 0xfe][..], &le].concat(),
        Encoding::Utf16Le { bom: true },
        "pw=x\n",
    );
    round_trip(&le, Encoding::Utf16Le { bom: false }, "pw=x\n");
    let be: Vec<u8> = "pw=x\n"
        .encode_utf16()
        .flat_map(|u| u.to_be_bytes())
        .collect();
    round_trip(&be, Encoding::Utf16Be { bom: false }, "pw=x\n");
}

#[test]
fn gzip_is_read_and_written_again() {
    let mut gz = flate2::GzBuilder::new()
        .mtime(0)
        .write(Vec::new(), flate2::Compression::default());
    gz.write_all(b"TOKEN=abc\n").expect("w");
    let bytes = gz.finish().expect("gz");
    let t = decode(&bytes).expect("gunzips");
    assert!(t.gzip && t.joined() == "TOKEN=abc\n");
    let back = encode(&t);
    let mut out = String::new();
    flate2::read::GzDecoder::new(&back[..])
        .read_to_string(&mut out)
        .expect("gz");
    assert_eq!(out, "TOKEN=abc\n");
}

#[test]
fn a_utf16_section_inside_utf8_is_read_as_utf16() {
    let mut bytes = b"INFO start \xc3\xa9\n".to_vec();
    bytes.extend([0xff, 0xfe]);
    bytes.extend(
        "HF_TOKEN=hf_secret_value_here\n"
            .encode_utf16()
            .flat_map(u16::to_le_bytes),
    );
    bytes.extend(b"INFO end\n");
    let t = decode(&bytes).expect("decodes");
    assert_eq!(t.parts.len(), 3, "{t:?}");
    assert_eq!(t.parts[1].encoding, Encoding::Utf16Le { bom: true });
    assert!(t.joined().contains("HF_TOKEN=hf_secret_value_here"));
    assert_eq!(encode(&t), bytes, "written back as it came");
    // NUL-separated variables are not UTF-16.
    let environ = b"A=1\0B=2\0HOME=/root\0";
    assert_eq!(decode(environ).expect("text").parts.len(), 1);
}

#[test]
fn what_cannot_be_text_is_refused_with_a_reason() {
    assert!(decode(b"\x28\xb5\x2f\xfd....")
        .expect_err("zstd")
        .contains("zstd"));
    assert!(decode(&[1, 2, 3, 4, 5, 6, 7, 8, 0x80, 0x81])
        .expect_err("binary")
        .contains("binary"));
}
