//! A server list ping by hand: the server is up when it answers one.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpStream};
use std::time::Duration;

use serde_json::Value;

use super::*;

// ------------------------------------------------------------------ server list ping

fn write_varint(out: &mut Vec<u8>, value: i32) {
    let mut v = value as u32;
    loop {
        if v & !0x7f == 0 {
            out.push(v as u8);
            return;
        }
        out.push((v as u8 & 0x7f) | 0x80);
        v >>= 7;
    }
}

fn read_varint(r: &mut impl Read) -> std::io::Result<i32> {
    let mut value: u32 = 0;
    for i in 0..5 {
        let mut b = [0u8];
        r.read_exact(&mut b)?;
        value |= u32::from(b[0] & 0x7f) << (7 * i);
        if b[0] & 0x80 == 0 {
            return Ok(value as i32);
        }
    }
    Err(std::io::Error::new(
        std::io::ErrorKind::InvalidData,
        "varint too long",
    ))
}

fn framed(body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    write_varint(&mut out, body.len() as i32);
    out.extend_from_slice(body);
    out
}

/// A Server List Ping (handshake with next state 1, status request) against
/// 127.0.0.1:`port`; returns the status JSON. Used to wait for the server:
/// a plain connect-and-close would leave a warning in its log.
pub fn status_ping(port: u16) -> std::io::Result<Value> {
    let addr = ([127, 0, 0, 1], port).into();
    let mut stream = TcpStream::connect_timeout(&addr, Duration::from_secs(1))?;
    stream.set_read_timeout(Some(Duration::from_secs(3)))?;
    stream.set_write_timeout(Some(Duration::from_secs(3)))?;
    let mut handshake = vec![0x00];
    write_varint(&mut handshake, PROTOCOL_1_20_1);
    let host = b"127.0.0.1";
    write_varint(&mut handshake, host.len() as i32);
    handshake.extend_from_slice(host);
    handshake.extend_from_slice(&port.to_be_bytes());
    write_varint(&mut handshake, 1);
    let mut out = framed(&handshake);
    out.extend(framed(&[0x00]));
    stream.write_all(&out)?;
    let _len = read_varint(&mut stream)?;
    let id = read_varint(&mut stream)?;
    if id != 0 {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("status response has packet id {id}"),
        ));
    }
    let n = read_varint(&mut stream)? as usize;
    let mut buf = vec![0; n];
    stream.read_exact(&mut buf)?;
    let _ = stream.shutdown(Shutdown::Both);
    serde_json::from_slice(&buf)
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
}
