#!/usr/bin/env python3
"""The crash matrix of the batched job engine (issue #62): a docsieve server on SQLite takes a stream of
small uploads (requests of ten one-line texts from four clients) and is killed with SIGKILL at a random
moment, KILLS times, restarted each time; then the queue is left to drain and the invariants are checked
in the database:

- every job is completed with exactly one execution, or failed; none is left queued or running;
- every finished job has exactly one audit entry of its processing, with the right outcome;
- the ledger has one debit per completed document job, and every reservation is settled once;
- the tenant's usage counts each completed document once.

    scripts/crash_matrix.py BINARY [KILLS=20] [SEED]

BINARY is a built `docsieve` (release). Leases are 3 s so that a dead process's batches come back
quickly. With CRASH_PG_URL=postgres://.../db two servers share a fresh database on that PostgreSQL
server (and CRASH_REDIS_URL, when given), uploads go to both, and each kill takes one of them at random.
Prints the figures and exits 1 when an invariant does not hold.
"""
import glob, json, os, random, re, shutil, signal, sqlite3, subprocess, sys, threading, time
import email, urllib.request, urllib.error

binary = sys.argv[1]
kills = int(sys.argv[2]) if len(sys.argv) > 2 else 20
rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 62)
data = os.path.join(os.environ.get("TMPDIR", "/tmp"), "docsieve-crash-matrix")
shutil.rmtree(data, ignore_errors=True)
os.makedirs(data)
pg = os.environ.get("CRASH_PG_URL")
ports = [18097, 18096] if pg else [18097]
B = f"http://127.0.0.1:{ports[0]}"
env = dict(os.environ, DOCSIEVE__STORAGE__DATA_DIR=data, DOCSIEVE__LOG__LEVEL="error", DOCSIEVE__JOBS__LEASE_SECONDS="3",
           DOCSIEVE__JOBS__LEASE_RENEW_INTERVAL_MS="500", DOCSIEVE__JOBS__POLL_INTERVAL_MS="200",
           DOCSIEVE__JOBS__MAX_QUEUED_PER_TENANT="1000000",
           DOCSIEVE__PLANS__TRIAL__CREDITS_PER_PERIOD="1000000000")
if pg:
    base_url, _ = pg.rsplit("/", 1)
    database = f"crash_matrix_{os.getpid()}"
    subprocess.run(["psql", pg, "-qc", f"CREATE DATABASE {database}"], check=True)
    env["DOCSIEVE__DATABASE__URL"] = f"{base_url}/{database}"
    if os.environ.get("CRASH_REDIS_URL"):
        env["DOCSIEVE__REDIS__URL"] = os.environ["CRASH_REDIS_URL"]
        env["DOCSIEVE__REDIS__KEY_PREFIX"] = f"{database}:"


def call(method, path, body=None, headers=None, raw=None, timeout=30, base=None):
    payload = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
    h = {"content-type": "application/json"} if raw is None else {}
    h.update(headers or {})
    req = urllib.request.Request((base or B) + path, data=payload, method=method, headers=h)
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return r.status, json.loads(r.read())


def start(port):
    server = subprocess.Popen([binary, "serve"], env=dict(env, DOCSIEVE__SERVER__BIND=f"127.0.0.1:{port}"),
                              stdout=subprocess.DEVNULL, stderr=open(data + "/err.log", "a"))
    for _ in range(300):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/system/health", timeout=1)
            return server
        except Exception:
            time.sleep(0.05)
    raise SystemExit("the server did not start: see " + data + "/err.log")


def login():
    return {"Authorization": "Bearer " + call("POST", "/v1/auth/login", {
        "email": "crash@example.com", "password": "password-1"})[1]["data"]["access_token"]}


servers = [start(port) for port in ports]
call("POST", "/v1/auth/signup", {"email": "crash@example.com", "password": "password-1"})
msg = email.message_from_bytes(open(glob.glob(data + "/outbox/*.eml")[0], "rb").read())
body = (msg.get_payload(decode=True) if not msg.is_multipart()
        else msg.get_payload()[0].get_payload(decode=True)).decode()
call("POST", "/v1/auth/verify-email", {"token": re.search(r"token=([A-Za-z0-9_-]+)", body).group(1)})
auth = {"value": login()}
accepted = []
stop = threading.Event()
counter = iter(range(10**9))
lock = threading.Lock()


def uploader(base):
    boundary = "----docsieve-crash"
    while not stop.is_set():
        parts = []
        with lock:
            first = next(counter) * 10
        for i in range(first, first + 10):
            text = f"Sipariş {i}: müşteri Ayşe Yılmaz, telefon 0532 123 45 67, teslimat {i % 30} gün.\n"
            parts.append(f"--{boundary}\r\nContent-Disposition: form-data; name=\"files\"; "
                         f"filename=\"d{i}.txt\"\r\nContent-Type: text/plain\r\n\r\n{text}\r\n".encode())
        parts.append(f"--{boundary}--\r\n".encode())
        try:
            status, answer = call("POST", "/v1/data-process/async", raw=b"".join(parts), headers=dict(
                auth["value"], **{"content-type": f"multipart/form-data; boundary={boundary}"}), base=base)
            if status == 202:
                with lock:
                    accepted.extend(answer["data"]["job_ids"])
        except Exception:
            time.sleep(0.05)  # the server is down or was killed mid-request


threads = [threading.Thread(target=uploader, args=(f"http://127.0.0.1:{ports[i % len(ports)]}",),
                            daemon=True) for i in range(4)]
for thread in threads:
    thread.start()
for kill in range(kills):
    time.sleep(rng.uniform(0.3, 2.5))
    victim = rng.randrange(len(servers))
    servers[victim].send_signal(signal.SIGKILL)
    servers[victim].wait()
    servers[victim] = start(ports[victim])
    auth["value"] = login()
stop.set()
for thread in threads:
    thread.join()
if pg:
    def rows(sql):
        out = subprocess.run(["psql", env["DOCSIEVE__DATABASE__URL"], "-tAF", "\t", "-c", sql],
                             check=True, capture_output=True, text=True).stdout
        return [tuple(line.split("\t")) for line in out.splitlines() if line]
else:
    db = sqlite3.connect(os.path.join(data, "docsieve.sqlite3"), timeout=30)

    def rows(sql):
        return db.execute(sql).fetchall()


def one(sql):
    return int(rows(sql)[0][0])


deadline = time.time() + 600
while one("SELECT COUNT(*) FROM jobs WHERE status IN ('queued', 'running')") and time.time() < deadline:
    time.sleep(0.5)
for server in servers:
    server.send_signal(signal.SIGTERM)
    server.wait()
jobs = one("SELECT COUNT(*) FROM jobs")
completed = one("SELECT COUNT(*) FROM jobs WHERE status = 'completed'")
failed = one("SELECT COUNT(*) FROM jobs WHERE status = 'failed'")
checks = {
    "accepted uploads whose jobs are missing":
        len(set(accepted) - {row[0] for row in rows("SELECT id FROM jobs")}),
    "jobs neither completed nor failed": jobs - completed - failed,
    "completed jobs without exactly one execution": one(
        "SELECT COUNT(*) FROM jobs j WHERE j.status = 'completed' AND "
        "(SELECT COUNT(*) FROM executions e WHERE e.job_id = j.id) <> 1"),
    "executions of jobs not completed": one(
        "SELECT COUNT(*) FROM executions e JOIN jobs j ON j.id = e.job_id WHERE j.status <> 'completed'"),
    "finished jobs without exactly one audit entry": one(
        "SELECT COUNT(*) FROM jobs j WHERE j.status IN ('completed', 'failed') AND "
        "(SELECT COUNT(*) FROM audit_entries a WHERE a.target_id = j.id AND a.action = 'process') <> 1"),
    "audit outcomes that contradict the job": one(
        "SELECT COUNT(*) FROM audit_entries a JOIN jobs j ON j.id = a.target_id WHERE a.action = 'process' "
        "AND (CASE WHEN a.outcome = 'success' THEN 1 ELSE 0 END) <> "
        "(CASE WHEN j.status = 'completed' THEN 1 ELSE 0 END)"),
    "completed jobs without exactly one debit": one(
        "SELECT COUNT(*) FROM jobs j WHERE j.status = 'completed' AND "
        "(SELECT COUNT(*) FROM credit_ledger l WHERE l.reference = j.id AND l.entry_type = 'debit') <> 1"),
    "reservations not settled exactly once": one(
        "SELECT COUNT(*) FROM jobs j WHERE "
        "(SELECT COUNT(*) FROM credit_ledger l WHERE l.reference = j.id AND l.entry_type = 'release') <> 1"),
    "usage minus completed documents": one("SELECT documents_processed FROM tenant_usage") - completed,
}
reaped = one("SELECT COUNT(*) FROM jobs WHERE attempts > 1")
print(f"{'PostgreSQL, two processes' if pg else 'SQLite, one process'}: {kills} kills; {len(accepted)} documents accepted, {jobs} jobs in the database: {completed} completed, "
      f"{failed} failed; {reaped} ran more than once (a dead process's batch)")
print("failed jobs by code:", rows(
    "SELECT error_code, COUNT(*) FROM jobs WHERE status = 'failed' GROUP BY error_code"))
bad = {name: count for name, count in checks.items() if count}
for name, count in checks.items():
    print(f"  {name}: {count}")
if pg:
    subprocess.run(["psql", pg, "-qc", f"DROP DATABASE IF EXISTS {database} WITH (FORCE)"])
sys.exit(1 if bad else 0)
