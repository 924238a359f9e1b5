SET 'execution.runtime-mode' = 'batch';  -- expect: ok
