#!/usr/bin/env python3
"""The memory of async jobs: peak RSS (VmHWM from /proc/<pid>/status) of a docsieve server that runs
three 60 MB text jobs and a 62 MB e-mail with a 44 MB base64 attachment, queued at once (issue #61).
Prints the figures; asserts nothing.

    scripts/bench_job_memory.py BINARY [TEXT_FILES=3] [EMAIL=1] [KEY=VALUE ...]

BINARY is a built `docsieve`; KEY=VALUE pairs are extra environment (DOCSIEVE__JOBS__MEMORY_BUDGET_MB=0
measures without the budget; CSV_MB=64 adds a CSV of that size whose rows are distinct people, CSV_FILES=3
three of them). It runs the server on its embedded defaults in a scratch folder, and also prints the
largest RSS its extraction workers reached together (sampled every 0.2 s).
"""
import email.mime.multipart, email.mime.text, email.mime.application, json, os, re, shutil
import subprocess, sys, time, urllib.request, glob

binary = sys.argv[1]
n_text = int(sys.argv[2]) if len(sys.argv) > 2 else 3
with_mail = (sys.argv[3] != "0") if len(sys.argv) > 3 else True
extra = dict(kv.split("=", 1) for kv in sys.argv[4:])
csv_mb = int(extra.pop("CSV_MB", "0"))
csv_files = int(extra.pop("CSV_FILES", "1"))
data = os.path.join(os.environ.get("TMPDIR", "/tmp"), "docsieve-bench-memory")
shutil.rmtree(data, ignore_errors=True)
os.makedirs(data)
env = dict(os.environ, DOCSIEVE__STORAGE__DATA_DIR=data, DOCSIEVE__SERVER__BIND="127.0.0.1:18099",
           DOCSIEVE__LOG__LEVEL="warn", **extra)
server = subprocess.Popen([binary, "serve"], env=env, stdout=subprocess.DEVNULL, stderr=open(data + "/err.log", "w"))
B = "http://127.0.0.1:18099"

def call(method, path, body=None, headers=None, raw=None):
    data_ = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
    h = {"content-type": "application/json"} if raw is None else {}
    h.update(headers or {})
    req = urllib.request.Request(B + path, data=data_, method=method, headers=h)
    with urllib.request.urlopen(req, timeout=600) as r:
        return json.loads(r.read())

for _ in range(100):
    try:
        urllib.request.urlopen(B + "/system/health", timeout=1); break
    except Exception:
        time.sleep(0.2)
call("POST", "/v1/auth/signup", {"email": "m@example.com", "password": "password-1"})
mail = open(glob.glob(data + "/outbox/*.eml")[0], "rb").read()
msg = email.message_from_bytes(mail)
body = (msg.get_payload(decode=True) if not msg.is_multipart() else msg.get_payload()[0].get_payload(decode=True)).decode()
token = re.search(r"token=([A-Za-z0-9_-]+)", body).group(1)
call("POST", "/v1/auth/verify-email", {"token": token})
access = call("POST", "/v1/auth/login", {"email": "m@example.com", "password": "password-1"})["data"]["access_token"]
auth = {"Authorization": "Bearer " + access}

def hwm(pid):
    for l in open(f"/proc/{pid}/status"):
        if l.startswith("VmHWM"):
            return int(l.split()[1]) / 1024
print(f"server VmHWM at rest {hwm(server.pid):.0f} MB")
line = "Merhaba dünya, bu bir deneme satırıdır; Ayşe Yılmaz 0532 123 45 67 numarasını verdi.\n"
text = (line * (60_000_000 // len(line.encode()))).encode()
files = [(f"big{i}.txt", text) for i in range(n_text)]
if csv_mb:
    # Rows of distinct people, as a customer export holds them: valid TCKNs and IBANs, names drawn
    # from short lists, phones and e-mails; every value a finding, few of them repeated.
    import random
    rnd = random.Random(7)
    given = ["Ayşe", "Mehmet", "Zeynep", "Ali", "Elif", "Mustafa", "Fatma", "Emre", "Hüseyin", "Derya"]
    family = ["Yılmaz", "Kaya", "Demir", "Şahin", "Çelik", "Yıldız", "Aydın", "Öztürk", "Arslan", "Doğan"]
    def tckn():
        d = [rnd.randint(1, 9)] + [rnd.randint(0, 9) for _ in range(8)]
        d.append(((sum(d[0:9:2]) * 7) - sum(d[1:8:2])) % 10)
        d.append(sum(d) % 10)
        return "".join(map(str, d))
    def iban():
        bban = f"{rnd.randint(0, 99999):05d}0{rnd.randint(0, 10**16 - 1):016d}"
        digits = int("".join(str(int(c, 36)) for c in bban + "TR00"))
        return f"TR{98 - digits % 97:02d}{bban}"
    lines = ["musteri_id;tckn;ad;soyad;telefon;eposta;iban;tutar\n"]
    size = len(lines[0])
    i = 0
    while size < csv_mb * 1_000_000:
        g, f = rnd.choice(given), rnd.choice(family)
        line = (f"{i};{tckn()};{g};{f};0532 {rnd.randint(100, 999)} {rnd.randint(10, 99)} {rnd.randint(10, 99)};"
                f"musteri{i}@ornek.com.tr;{iban()};{rnd.randint(1, 99999)},{rnd.randint(0, 99):02d}\n")
        lines.append(line); size += len(line.encode()); i += 1
    body = "".join(lines).encode()
    print(f"CSV: {len(body)/1e6:.1f} MB, {i} rows, x{csv_files}")
    for k in range(csv_files):
        files.append((f"big{k}.csv", body))
if with_mail:
    m = email.mime.multipart.MIMEMultipart()
    m["Subject"] = "Rapor"; m["From"] = "a@example.com"; m["To"] = "b@example.com"
    m.attach(email.mime.text.MIMEText("Ekte rapor var. " * 1000 + ("x" * 70 + "\n") * 250_000))
    att = email.mime.application.MIMEApplication((line * (33_000_000 // len(line.encode()))).encode(), Name="rapor.txt")
    att["Content-Disposition"] = 'attachment; filename="rapor.txt"'
    m.attach(att)
    raw = m.as_bytes()
    files.append(("big.eml", raw))
    print(f"e-mail: {len(raw)/1e6:.1f} MB")
ids = []
for name, content in files:
    boundary = "----docsieve"
    parts = [f"--{boundary}\r\nContent-Disposition: form-data; name=\"files\"; filename=\"{name}\"\r\nContent-Type: application/octet-stream\r\n\r\n".encode(), content, f"\r\n--{boundary}--\r\n".encode()]
    r = call("POST", "/v1/data-process/async", raw=b"".join(parts), headers=dict(auth, **{"content-type": f"multipart/form-data; boundary={boundary}"}))
    ids += r["data"]["job_ids"]
    if r["data"]["rejected"]:
        print("rejected", r["data"]["rejected"])
import threading
peak = {"server": 0.0, "workers": 0.0}
def rss(pid):
    try:
        for l in open(f"/proc/{pid}/status"):
            if l.startswith("VmRSS"):
                return int(l.split()[1]) / 1024
    except OSError:
        return 0.0
    return 0.0
def children(pid):
    # Every process whose parent is the server (its extraction workers, started from any thread).
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = open(f"/proc/{entry}/stat").read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry))
    return found
def sample():
    while server.poll() is None:
        peak["server"] = max(peak["server"], rss(server.pid))
        peak["workers"] = max(peak["workers"], sum(rss(c) for c in children(server.pid)))
        time.sleep(0.2)
threading.Thread(target=sample, daemon=True).start()
print(f"server VmHWM after the uploads {hwm(server.pid):.0f} MB")
started = time.time()
while True:
    views = [call("GET", f"/v1/jobs/{j}", headers=auth)["data"] for j in ids]
    if all(v["status"] in ("completed", "failed") for v in views):
        break
    if time.time() - started > 1800:
        print("timeout"); break
    time.sleep(2)
print(f"{len(ids)} jobs in {time.time()-started:.0f} s:", [ (v["status"], (v.get("error") or {}).get("code")) for v in views])
print(f"server VmHWM {hwm(server.pid):.0f} MB; extraction workers together at most {peak['workers']:.0f} MB RSS")
server.terminate(); server.wait()
