#!/usr/bin/env python3
"""A loopback HTTP server for the CLI tests: records every request and answers each the same way.

usage: record-server.py PORT_FILE LOG_FILE REPLY [REPEAT_BYTES]

It binds 127.0.0.1 on a free port and writes the port to PORT_FILE; each request it receives is
appended to LOG_FILE as a JSON line (method, path, headers, body length). REPLY is what it
answers with:
  wav            a 2-second spoken-level tone as audio/wav (a speech endpoint)
  chat:TEXT      a Chat Completions answer whose content is TEXT
  big:N          a Chat Completions answer whose content is N bytes of "a"
  json:TEXT      TEXT as application/json (any body)
  slow-chat:MS:TEXT  like chat:TEXT after MS milliseconds
"""
import http.server, json, math, struct, sys, threading, time, io, wave

port_file, log_file, reply = sys.argv[1], sys.argv[2], sys.argv[3]
lock = threading.Lock()


def wav_bytes(seconds=2.0, rate=22050):
    out = io.BytesIO()
    with wave.open(out, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        frames = bytearray()
        for i in range(int(seconds * rate)):
            # A tone that comes and goes, as speech does.
            level = 8000 if (i // (rate // 5)) % 2 == 0 else 0
            frames += struct.pack("<h", int(level * math.sin(2 * math.pi * 220 * i / rate)))
        w.writeframes(bytes(frames))
    return out.getvalue()


def chat(text):
    return json.dumps({
        "id": "x", "object": "chat.completion", "model": "m",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
    }).encode()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        with lock:
            with open(log_file, "a") as f:
                f.write(json.dumps({"method": "POST", "path": self.path, "headers": dict(self.headers.items()),
                                    "body_bytes": len(body), "body": body.decode("utf-8", "replace")[:20000]}) + "\n")
        kind, _, rest = reply.partition(":")
        if kind == "wav":
            data, ctype = wav_bytes(), "audio/wav"
        elif kind == "chat":
            data, ctype = chat(rest), "application/json"
        elif kind == "slow-chat":
            ms, _, text = rest.partition(":")
            time.sleep(int(ms) / 1000)
            data, ctype = chat(text), "application/json"
        elif kind == "big":
            data, ctype = chat("a" * int(rest)), "application/json"
        else:
            data, ctype = rest.encode(), "application/json"
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
with open(port_file + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
import os
os.rename(port_file + ".tmp", port_file)
server.serve_forever()
