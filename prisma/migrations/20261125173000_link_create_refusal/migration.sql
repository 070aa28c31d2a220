-- A refusal raised from inside one statement (lib/links/create-sql.ts): the API's single create
-- inserts the link and takes the monthly allowance in ONE autocommit statement, and when either
-- part is refused (allowance spent, code taken) the statement must fail so that neither is kept.
-- Plain SQL has no way to raise an error; this does, with SQLSTATE LH001 and the reason as the
-- message. STRICT: called with NULL it is not run at all (nothing refused).

CREATE OR REPLACE FUNCTION linkhop_refuse(reason text) RETURNS void LANGUAGE plpgsql STRICT AS $$
BEGIN
  RAISE EXCEPTION USING ERRCODE = 'LH001', MESSAGE = reason;
END $$;
