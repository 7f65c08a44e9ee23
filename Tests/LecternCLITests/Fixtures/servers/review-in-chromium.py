#!/usr/bin/env python3
"""Drives `lectern review` in headless Chromium as a reviewer would, with the page's own scripts
off (the review pages work without JavaScript): approve one item, reject one with a note, edit one
field of a third, then reload the list and report what it shows.

usage: review-in-chromium.py BASE_URL APPROVE_ID REJECT_ID EDIT_ID FIELD NOTE NEW_TEXT
Prints one JSON object: the status each page showed after its decision, and the list's statuses.
Chromium is driven over the DevTools protocol (a minimal WebSocket client, standard library only).
"""
import base64, http.client, json, os, re, shutil, socket, struct, subprocess, sys, tempfile, time, urllib.parse

base, approve_id, reject_id, edit_id, field, note, new_text = sys.argv[1:8]


class Socket:
    def __init__(self, url):
        parts = urllib.parse.urlparse(url)
        self.sock = socket.create_connection((parts.hostname, parts.port), timeout=600)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET {parts.path} HTTP/1.1\r\nHost: {parts.hostname}:{parts.port}\r\nUpgrade: websocket\r\n"
                           f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            head += self.sock.recv(1)
        assert b" 101 " in head.split(b"\r\n")[0], head
        self.next_id = 0

    def send(self, method, **params):
        self.next_id += 1
        payload = json.dumps({"id": self.next_id, "method": method, "params": params}).encode()
        header = bytes([0x81])
        mask = os.urandom(4)
        n = len(payload)
        header += bytes([0x80 | n]) if n < 126 else (bytes([0x80 | 126]) + struct.pack(">H", n) if n < 65536 else bytes([0x80 | 127]) + struct.pack(">Q", n))
        self.sock.sendall(header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))
        while True:
            message = self.receive()
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})

    def receive(self):
        def exactly(n):
            data = b""
            while len(data) < n:
                chunk = self.sock.recv(n - len(data))
                if not chunk:
                    raise EOFError
                data += chunk
            return data
        message = b""
        while True:
            first, second = exactly(2)
            n = second & 0x7F
            if n == 126:
                n = struct.unpack(">H", exactly(2))[0]
            elif n == 127:
                n = struct.unpack(">Q", exactly(8))[0]
            message += exactly(n)
            if first & 0x80:
                return json.loads(message)


profile = tempfile.mkdtemp(prefix="lectern-chromium-")
browser = subprocess.Popen(
    ["chromium", "--headless=new", "--no-sandbox", "--disable-gpu", "--remote-debugging-port=0", f"--user-data-dir={profile}", "about:blank"],
    stderr=subprocess.PIPE, text=True)
try:
    devtools = None
    deadline = time.time() + 600
    while devtools is None and time.time() < deadline:
        line = browser.stderr.readline()
        match = re.search(r"DevTools listening on (ws://\S+)", line)
        if match:
            devtools = match.group(1)
    port = urllib.parse.urlparse(devtools).port
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    connection.request("PUT", "/json/new?about:blank")
    page = json.loads(connection.getresponse().read())
    tab = Socket(page["webSocketDebuggerUrl"])
    tab.send("Page.enable")
    # The pages must work without their own scripts.
    tab.send("Emulation.setScriptExecutionDisabled", value=True)

    def load(url):
        tab.send("Page.navigate", url=url)
        wait_loaded()

    def wait_loaded():
        for _ in range(600):
            state = tab.send("Runtime.evaluate", expression="document.readyState", returnByValue=True)["result"].get("value")
            href = tab.send("Runtime.evaluate", expression="location.href", returnByValue=True)["result"].get("value")
            if state == "complete" and not href.startswith("about:"):
                return
            time.sleep(0.2)
        raise TimeoutError("page did not load")

    def evaluate(expression):
        return tab.send("Runtime.evaluate", expression=expression, returnByValue=True)["result"].get("value")

    def submit(form_selector):
        # As a person's click would: the browser posts the form and follows the redirect.
        before = evaluate("location.href")
        evaluate(f"document.querySelector({json.dumps(form_selector)}).querySelector('button').click()")
        for _ in range(600):
            time.sleep(0.2)
            if evaluate("document.readyState") == "complete" and evaluate("location.href") != before:
                break
        return evaluate("document.querySelector('.status') && document.querySelector('.status').textContent")

    item = lambda i: f"{base}/item?id={urllib.parse.quote(i, safe='/')}"
    results = {}
    load(item(approve_id))
    results["approve"] = submit("form.approve")
    load(item(reject_id))
    evaluate(f"document.querySelector('form.reject textarea[name=note]').value = {json.dumps(note)}")
    results["reject"] = submit("form.reject")
    load(item(edit_id))
    evaluate(f"document.querySelector('form.edit textarea[name=\"field:{field}\"]').value = {json.dumps(new_text)}")
    results["edit"] = submit("form.edit")
    # Reload the list: each decision is there.
    load(base + "/")
    results["list"] = evaluate("Object.fromEntries([...document.querySelectorAll('tbody tr')].map(r => [r.cells[0].textContent, r.cells[2].textContent]))")
    results["scripts_disabled"] = evaluate("document.querySelectorAll('script').length == 0")
    print(json.dumps(results))
finally:
    browser.kill()
    browser.wait()
    shutil.rmtree(profile, ignore_errors=True)
