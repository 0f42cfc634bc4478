-- The policy decision behind a logged call, as JSON: the decision, the rule
-- that made it and at which level, and for a call that ran on an approval,
-- the approval, who gave it and how long it took. NULL when no rule matched
-- and no approval was involved (a project without rules writes nothing).
ALTER TABLE execution_log ADD COLUMN policy TEXT;
