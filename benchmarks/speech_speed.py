#!/usr/bin/env python3
"""Speech synthesis speed of espeak-ng (the narration add-on's default provider), in seconds of
audio per second of CPU, for English and Arabic, and of the Opus encoding that follows.

    benchmarks/speech_speed.py [--runs N]

Texts: the English world-geography corpus and the Arabic general corpus (corpus/), about
1,500 words each, spoken at the narration's 160 words a minute with the voices Lectern uses
(en-us, ar). CPU time is the child's user + system time (os.wait4), so a busy machine changes
the wall time, not the measure.
"""
import argparse, glob, os, subprocess, sys, tempfile, time

def words(paths, limit=1500):
    out = []
    for path in sorted(paths):
        with open(path, encoding="utf-8") as f:
            for token in f.read().split():
                if any(c.isalpha() for c in token):
                    out.append(token.strip("#*_`|>[]()"))
                if len(out) >= limit:
                    return " ".join(out)
    return " ".join(out)

def cpu_of(argv, data):
    """Runs argv with data on stdin; returns (stdout, cpu seconds, wall seconds)."""
    start = time.monotonic()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as inp:
        inp.write(data); inp.seek(0)
        pid = os.fork()
        if pid == 0:
            os.dup2(inp.fileno(), 0); os.dup2(out.fileno(), 1)
            devnull = os.open(os.devnull, os.O_WRONLY); os.dup2(devnull, 2)
            os.execvp(argv[0], argv)
        _, status, usage = os.wait4(pid, 0)
        wall = time.monotonic() - start
        out.seek(0)
        return out.read(), usage.ru_utime + usage.ru_stime, wall

def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "corpus")
    texts = {
        "en": ("en-us", words(glob.glob(os.path.join(root, "english-world-geography", "*")))),
        "ar": ("ar", words(glob.glob(os.path.join(root, "arabic-general", "*")))),
    }
    print(f"espeak-ng: {subprocess.run(['espeak-ng', '--version'], capture_output=True, text=True).stdout.strip()}")
    for language, (voice, text) in texts.items():
        for run_number in range(1, args.runs + 1):
            wav, cpu, wall = cpu_of(["espeak-ng", "-v", voice, "-s", "160", "--stdin", "--stdout"], text.encode("utf-8"))
            audio = (len(wav) - 44) / 2 / 22050
            opus, ocpu, owall = cpu_of(["opusenc", "--quiet", "--speech", "--bitrate", "24", "--serial", "1", "-", "-"], wav)
            print(f"{language} run {run_number}: {len(text.split())} words, {audio:.2f} s of audio; espeak-ng {cpu:.2f} s CPU "
                  f"({audio / cpu:.0f} s of audio per CPU second, wall {wall:.2f} s); opusenc {ocpu:.2f} s CPU "
                  f"({audio / ocpu:.0f}×), {len(opus) / audio / 1000 * 8:.1f} kbit/s")

if __name__ == "__main__":
    main()
