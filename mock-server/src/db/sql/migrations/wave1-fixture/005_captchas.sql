-- Sign-in CAPTCHA challenges: single-use and short-lived. Only an HMAC of the answer (keyed with the server
-- secret and bound to the challenge id) is kept, and the table is shared by every process on the database.
CREATE TABLE captchas (
  id          TEXT PRIMARY KEY,        -- random challenge id handed to the client
  answer_hash TEXT NOT NULL,           -- hex HMAC-SHA256(secret, id ":" normalised answer)
  ip          TEXT NOT NULL,           -- who asked, to bound the live challenges per address
  expires_at  INTEGER NOT NULL
);
CREATE INDEX captchas_ip ON captchas(ip, expires_at);
CREATE INDEX captchas_expiry ON captchas(expires_at);
