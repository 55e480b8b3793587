-- Up Migration
-- Issue 38 point 3 (docs/reports-and-invoices.md "Invoices"): each operator's billing contract and
-- the monthly invoices and credit notes issued from the daily figures. Additive only.

-- The contract: a revenue share of the month's GGR (in the billing currency), flat (one tier) or
-- tiered by the month's GGR (marginal: each tier's rate on the part of the GGR inside it), and a
-- minimum fee. Tiers are `[{from_ggr_minor: "0", rate_ppm: 150000}, ...]`: the first from 0,
-- strictly increasing; the API checks them (422) and an invoice copies the terms it used.
CREATE TABLE billing_contracts (
  operator_id       text PRIMARY KEY REFERENCES operators (operator_id),
  billing_currency  char(3) NOT NULL CHECK (billing_currency ~ '^[A-Z]{3}$'),
  minimum_fee_minor bigint NOT NULL CHECK (minimum_fee_minor >= 0),
  tiers             jsonb NOT NULL CHECK (jsonb_typeof(tiers) = 'array' AND jsonb_array_length(tiers) BETWEEN 1 AND 20),
  updated_at        timestamptz NOT NULL DEFAULT now(),
  -- The admin key that set it (its id).
  updated_by        text
);

-- Invoices and credit notes. Immutable once issued (the trigger below refuses any UPDATE or
-- DELETE): `body` is the whole document as answered (lines with their frozen rates, date and
-- source, each line's round-set hash; the contract's terms), amounts in it as decimal strings;
-- `invoice_hash` is the SHA-256 of that body's canonical JSON. A correction is a credit note
-- (kind `credit_note`, naming the invoice it reverses; one per invoice), after which the month can
-- be invoiced again.
CREATE TABLE invoices (
  invoice_id         text PRIMARY KEY CHECK (invoice_id ~ '^(inv|cn)-[a-z0-9_-]{2,64}-[0-9]{4}-[0-9]{2}-[0-9]{1,4}$'),
  kind               text NOT NULL CHECK (kind IN ('invoice', 'credit_note')),
  operator_id        text NOT NULL REFERENCES operators (operator_id),
  -- The month: its first day.
  period             date NOT NULL CHECK (extract(day FROM period) = 1),
  credits_invoice_id text UNIQUE REFERENCES invoices (invoice_id),
  billing_currency   char(3) NOT NULL,
  amount_due_minor   bigint NOT NULL,
  body               jsonb NOT NULL,
  invoice_hash       char(64) NOT NULL CHECK (invoice_hash ~ '^[0-9a-f]{64}$'),
  issued_at          timestamptz NOT NULL DEFAULT now(),
  issued_by          text,
  CHECK ((kind = 'credit_note') = (credits_invoice_id IS NOT NULL))
);
CREATE INDEX invoices_operator_period ON invoices (operator_id, period DESC, issued_at DESC);

CREATE FUNCTION invoices_immutable() RETURNS trigger AS $$
BEGIN
  RAISE EXCEPTION 'invoice % is immutable once issued: correct it with a credit note', OLD.invoice_id
    USING ERRCODE = 'integrity_constraint_violation';
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER invoices_immutable BEFORE UPDATE OR DELETE ON invoices
  FOR EACH ROW EXECUTE FUNCTION invoices_immutable();

-- Down Migration
DROP TABLE invoices;
DROP FUNCTION invoices_immutable();
DROP TABLE billing_contracts;
