// The test client's answer to a server resource pack (1.20.1
// `resource_pack_send`), chosen by the plan's "resource_pack" key:
//
//   "ignore"   (the default) never answers, as a client that hangs would;
//   "decline"  answers DECLINED through mineflayer's bot.denyResourcePack(),
//              as a player who clicks "No" (or whose server entry has packs
//              disabled) does;
//   "accept"   does what a vanilla client set to accept does: answers
//              ACCEPTED, downloads the URL with a plain GET and the
//              vanilla headers (at most 262,144,000 bytes), checks the
//              SHA-1 when the hash is 40 hex digits, then answers
//              SUCCESSFULLY_LOADED, or FAILED_DOWNLOAD when the download
//              or the check failed (the scheme must be http or https).
//
// Events: resource_pack {url, hash, forced, prompt}; for "accept"
// resource_pack_download {url, http_status, bytes, sha1, error}; and one
// resource_pack_answer {result} per answer sent ("accepted", "loaded",
// "declined", "failed_download").
'use strict'

const crypto = require('crypto')
const http = require('http')
const https = require('https')

const RESULTS = { loaded: 0, declined: 1, failed_download: 2, accepted: 3 }
const MODES = ['ignore', 'decline', 'accept']
const MAX_PACK_BYTES = 262144000
const SHA1_PATTERN = /^[a-fA-F0-9]{40}$/
const DOWNLOAD_TIMEOUT_MS = 15000

// GETs `url` like the vanilla client; resolves to {http_status, body, error}.
function download (url, username) {
  return new Promise((resolve) => {
    let parsed
    try {
      parsed = new URL(url)
    } catch (e) {
      resolve({ http_status: null, body: null, error: `bad URL: ${e.message}` })
      return
    }
    const lib = parsed.protocol === 'http:' ? http : parsed.protocol === 'https:' ? https : null
    if (!lib) {
      resolve({ http_status: null, body: null, error: `unsupported scheme ${parsed.protocol}` })
      return
    }
    const request = lib.get(parsed, {
      headers: {
        'User-Agent': 'Minecraft Java/1.20.1',
        'X-Minecraft-Username': username,
        'X-Minecraft-Version': '1.20.1',
        'X-Minecraft-Version-ID': '1.20.1',
        'X-Minecraft-Pack-Format': '15'
      },
      timeout: DOWNLOAD_TIMEOUT_MS
    }, (response) => {
      const chunks = []
      let size = 0
      response.on('data', (chunk) => {
        size += chunk.length
        if (size > MAX_PACK_BYTES) {
          request.destroy(new Error(`over ${MAX_PACK_BYTES} bytes`))
          return
        }
        chunks.push(chunk)
      })
      response.on('end', () => resolve({ http_status: response.statusCode, body: Buffer.concat(chunks), error: null }))
      response.on('error', (e) => resolve({ http_status: response.statusCode, body: null, error: e.message }))
    })
    request.on('timeout', () => request.destroy(new Error('timed out')))
    request.on('error', (e) => resolve({ http_status: null, body: null, error: e.message }))
  })
}

// Installs the handler on `bot` (mineflayer). `record(event, fields)` prints
// an event; `chatText(json)` turns a text component into plain text;
// `isEnded()` tells whether the connection is gone.
function handleResourcePacks (bot, mode, username, { record, chatText, isEnded }) {
  if (!MODES.includes(mode)) throw new Error(`"resource_pack" must be one of ${MODES.join(', ')}, not ${mode}`)
  const answer = (result) => {
    if (isEnded()) return
    bot._client.write('resource_pack_receive', { result: RESULTS[result] })
    record('resource_pack_answer', { result })
  }
  bot._client.on('resource_pack_send', (p) => {
    record('resource_pack', {
      url: p.url,
      hash: p.hash,
      forced: p.forced,
      prompt: p.promptMessage === undefined || p.promptMessage === null ? null : chatText(p.promptMessage)
    })
    if (mode === 'ignore') return
    if (mode === 'decline') {
      bot.denyResourcePack()
      record('resource_pack_answer', { result: 'declined' })
      return
    }
    answer('accepted')
    download(p.url, username).then((got) => {
      const sha1 = got.body ? crypto.createHash('sha1').update(got.body).digest('hex') : null
      record('resource_pack_download', {
        url: p.url,
        http_status: got.http_status,
        bytes: got.body ? got.body.length : null,
        sha1,
        error: got.error
      })
      const checked = !SHA1_PATTERN.test(p.hash) || sha1 === p.hash.toLowerCase()
      answer(got.http_status === 200 && got.body && checked ? 'loaded' : 'failed_download')
    })
  })
}

module.exports = { handleResourcePacks, MODES }
