-- The reader model of docs/PERFORMANCE.md "Load test": each reader is a person with the character page (or an API
-- client) open. Their page polls every THINK ms (htmx `every 2s`) with the ETag it last received and gets a 304
-- while nothing changed; their first request and about one in RELOAD_EVERY after it is a full load (a reload). Run with as many wrk threads
-- as connections (`-tN -cN`): each thread is then one connection with its own Lua state, so each reader has its
-- own user (line N of the credentials file, "Header: value") and its own ETag.
--
--   wrk -tN -cN -s loadtest/readers.lua URL -- page|api THINK_MS RELOAD_EVERY CREDENTIALS_FILE FIRST_ETAG
--
-- wrk measures each request from its write to its response: the think time (delay) is not part of the latency.

local threads = {}

function setup(thread)
  thread:set("id", #threads + 1)
  table.insert(threads, thread)
end

function init(args)
  kind = args[1]
  think = tonumber(args[2])
  reload_every = tonumber(args[3])
  local creds = {}
  for line in io.lines(args[4]) do
    local name, value = line:match("^([^:]+): (.*)$")
    if name then table.insert(creds, { name, value }) end
  end
  cred = creds[(id - 1) % #creds + 1]
  etag = args[5]
  math.randomseed(os.time() + 7919 * id)
  first, opened, polls, loads, ok, not_modified, other = true, false, 0, 0, 0, 0, 0
end

function delay()
  -- The first request comes at a random point of the first period: readers are not in step.
  if first then
    first = false
    return math.random(0, think)
  end
  return think
end

function request()
  local headers = { [cred[1]] = cred[2] }
  -- A reader's first request opens the page (a full load), as a person does before their page polls.
  if not opened or math.random(reload_every) == 1 then
    opened = true
    loads = loads + 1
  else
    polls = polls + 1
    headers["If-None-Match"] = etag
    if kind == "page" then
      headers["HX-Request"] = "true"
      headers["HX-Target"] = "live"
      headers["HX-Trigger"] = "live"
    end
  end
  return wrk.format("GET", nil, headers)
end

function response(status, headers, body)
  if status == 200 then
    ok = ok + 1
  elseif status == 304 then
    not_modified = not_modified + 1
  else
    other = other + 1
  end
  if headers["ETag"] then
    etag = headers["ETag"]
  elseif status == 200 and kind == "page" then
    -- A reload: the page carries the ETag its live region will poll with (escapejs writes quotes as \u0022).
    local tag = body:match('"If%-None%-Match": "\\u0022(.-)\\u0022"')
    if tag then etag = '"' .. tag .. '"' end
  end
end

function done(summary, latency, requests)
  local t = { polls = 0, loads = 0, ok = 0, not_modified = 0, other = 0 }
  for _, thread in ipairs(threads) do
    for name, _ in pairs(t) do t[name] = t[name] + thread:get(name) end
  end
  io.write(string.format("READERS polls=%d loads=%d ok=%d not_modified=%d other=%d\n",
    t.polls, t.loads, t.ok, t.not_modified, t.other))
end
