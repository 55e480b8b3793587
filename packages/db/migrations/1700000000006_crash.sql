-- Up Migration
-- prov_d crash titles: provably fair seed chains, the page's session authorizations, the crash
-- rounds (operator-wallet and demo), and demo sessions with play money. Money of operator-wallet
-- rounds moves only through the settlement workflow (rounds, wallet_transactions); every stage of
-- those rounds is appended to round_stages.

-- A demo page's play-money session (GET /games/<slug>/demo): no operator, no player, no wallet.
CREATE TABLE crash_demo_sessions (
  demo_id       text PRIMARY KEY,
  -- The page's bearer token: only its SHA-256 is stored.
  token_hash    char(64) NOT NULL UNIQUE CHECK (token_hash ~ '^[0-9a-f]{64}$'),
  symbol        text NOT NULL REFERENCES games (symbol),
  balance_minor bigint NOT NULL CHECK (balance_minor >= 0),
  created_at    timestamptz NOT NULL DEFAULT now(),
  expires_at    timestamptz NOT NULL
);
CREATE INDEX crash_demo_sessions_expires ON crash_demo_sessions (expires_at);

-- A hash chain of server seeds per player (or demo session) and title: seed_length = the root,
-- seed_i = sha256(seed_{i+1}), seed_0 = terminal_hash, published when the chain is created. Round
-- k uses seed_k (next_position is the k of the next bet). The root is sealed with the secret box.
CREATE TABLE crash_seed_chains (
  chain_id      text PRIMARY KEY,
  player_id     text REFERENCES players (player_id),
  demo_id       text REFERENCES crash_demo_sessions (demo_id) ON DELETE CASCADE,
  symbol        text NOT NULL REFERENCES games (symbol),
  length        integer NOT NULL CHECK (length BETWEEN 1 AND 100000),
  root_seed_enc text NOT NULL,
  terminal_hash char(64) NOT NULL CHECK (terminal_hash ~ '^[0-9a-f]{64}$'),
  next_position integer NOT NULL DEFAULT 1,
  created_at    timestamptz NOT NULL DEFAULT now(),
  exhausted_at  timestamptz,
  CHECK ((player_id IS NULL) <> (demo_id IS NULL)),
  CHECK (next_position BETWEEN 1 AND length + 1)
);
CREATE UNIQUE INDEX crash_seed_chains_live_player ON crash_seed_chains (player_id, symbol)
  WHERE exhausted_at IS NULL AND player_id IS NOT NULL;
CREATE UNIQUE INDEX crash_seed_chains_live_demo ON crash_seed_chains (demo_id, symbol)
  WHERE exhausted_at IS NULL AND demo_id IS NOT NULL;

-- The game page's session authorization: opening the page exchanges the 5-minute login grant
-- (the launch URL's `login` token, sessions.token_hash) for this, valid one hour unless revoked.
CREATE TABLE crash_authorizations (
  authorization_id text PRIMARY KEY,
  session_id       text NOT NULL REFERENCES sessions (session_id),
  -- The page's bearer token: only its SHA-256 is stored.
  token_hash       char(64) NOT NULL UNIQUE CHECK (token_hash ~ '^[0-9a-f]{64}$'),
  authorized_until timestamptz NOT NULL,
  revoked_at       timestamptz,
  revoked_reason   text,
  created_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX crash_authorizations_session ON crash_authorizations (session_id);

-- One crash round. An operator-wallet round is also a settlement round (rounds, same id); a demo
-- round belongs to a demo session and moves no money. The server seed stays sealed until the
-- round ends; then it and the crash point are revealed here.
CREATE TABLE crash_rounds (
  round_id           text PRIMARY KEY,
  mode               text NOT NULL CHECK (mode IN ('operator-wallet', 'demo')),
  wallet_round_id    text REFERENCES rounds (round_id),
  session_id         text REFERENCES sessions (session_id),
  player_id          text REFERENCES players (player_id),
  demo_id            text REFERENCES crash_demo_sessions (demo_id) ON DELETE CASCADE,
  symbol             text NOT NULL REFERENCES games (symbol),
  currency           char(3) NOT NULL,
  stake_minor        bigint NOT NULL CHECK (stake_minor > 0),
  -- The RTP the crash point was drawn at (stored metadata of the title at bet time).
  rtp                text NOT NULL,
  scheme             text NOT NULL,
  chain_id           text NOT NULL REFERENCES crash_seed_chains (chain_id),
  -- The chain position k: the HMAC nonce.
  nonce              integer NOT NULL CHECK (nonce >= 1),
  -- seed_{k-1} = sha256(seed_k), shown to the player before the bet.
  commitment         char(64) NOT NULL CHECK (commitment ~ '^[0-9a-f]{64}$'),
  client_seed        text NOT NULL CHECK (client_seed ~ '^[!-~]{1,64}$'),
  server_seed_enc    text NOT NULL,
  auto_cashout_cents integer CHECK (auto_cashout_cents >= 101),
  state              text NOT NULL CHECK (state IN ('debiting', 'running', 'cashed_out', 'crashed', 'cancelling',
                                                   'cancelled', 'rejected')),
  -- Whether the settlement has answered the round's last step (finish or cancel); demo: at once.
  settled            boolean NOT NULL DEFAULT false,
  bet_at             timestamptz NOT NULL DEFAULT now(),
  started_at         timestamptz,
  ended_at           timestamptz,
  cashout_cents      integer,
  -- Milliseconds after started_at at which the cash-out was received (or the auto target reached).
  cashout_ms         integer,
  win_minor          bigint CHECK (win_minor >= 0),
  -- Revealed when the round ends.
  server_seed        char(64),
  crash_cents        integer,
  settle_sent_at     timestamptz,
  UNIQUE (chain_id, nonce),
  CHECK (
    (mode = 'operator-wallet' AND wallet_round_id = round_id AND session_id IS NOT NULL AND player_id IS NOT NULL
       AND demo_id IS NULL)
    OR (mode = 'demo' AND wallet_round_id IS NULL AND session_id IS NULL AND player_id IS NULL
       AND demo_id IS NOT NULL)
  ),
  CHECK (state IN ('debiting', 'running', 'cancelling') OR ended_at IS NOT NULL),
  CHECK (state <> 'cashed_out' OR (cashout_cents >= 101 AND win_minor IS NOT NULL))
);
-- One unfinished (debiting or running) round per player, or per demo session, and title.
CREATE UNIQUE INDEX crash_rounds_live_player ON crash_rounds (player_id, symbol)
  WHERE state IN ('debiting', 'running') AND player_id IS NOT NULL;
CREATE UNIQUE INDEX crash_rounds_live_demo ON crash_rounds (demo_id, symbol)
  WHERE state IN ('debiting', 'running') AND demo_id IS NOT NULL;
-- What the sweeper looks at: rounds whose game or settlement is not finished yet.
CREATE INDEX crash_rounds_unsettled ON crash_rounds (state, bet_at) WHERE NOT settled;
CREATE INDEX crash_rounds_player_recent ON crash_rounds (player_id, symbol, bet_at DESC) WHERE player_id IS NOT NULL;
CREATE INDEX crash_rounds_demo ON crash_rounds (demo_id) WHERE demo_id IS NOT NULL;

-- Down Migration
DROP TABLE crash_rounds;
DROP TABLE crash_authorizations;
DROP TABLE crash_seed_chains;
DROP TABLE crash_demo_sessions;
