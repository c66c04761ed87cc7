-- wrk script for Benchmarks/run_serve.sh: each request takes the next path of a file (one
-- request path per line, query string included), each thread starting at its own place in the
-- list, so the load is not one cached URL.
--
--   wrk -t2 -c32 -d20s --latency -s Benchmarks/serve_paths.lua http://127.0.0.1:PORT -- PATHS_FILE
--
-- At the end it prints one line `WRK_JSON {...}`: requests, duration, bytes, errors
-- (errors_status: answers with an HTTP status of 400 or more, as wrk counts them) and latency
-- percentiles in microseconds (wrk's own histogram).

local threads = {}
local counter = 1

function setup(thread)
   thread:set("id", counter)
   counter = counter + 1
   table.insert(threads, thread)
end

local paths = {}
local index = 1

function init(args)
   local file = args[1]
   if file == nil then
      error("serve_paths.lua: give the paths file after --")
   end
   for line in io.lines(file) do
      if #line > 0 then
         paths[#paths + 1] = line
      end
   end
   if #paths == 0 then
      error("serve_paths.lua: no paths in " .. file)
   end
   -- Threads start spread over the list (thread ids are 1, 2, …).
   local id = tonumber(wrk.thread:get("id")) or 1
   index = ((id - 1) * 7919) % #paths + 1
end

function request()
   local path = paths[index]
   index = index + 1
   if index > #paths then
      index = 1
   end
   return wrk.format("GET", path)
end

function done(summary, latency, requests)
   local e = summary.errors
   io.write(string.format(
      'WRK_JSON {"requests":%d,"duration_us":%d,"bytes":%d,"rps":%.1f,'
         .. '"errors_connect":%d,"errors_read":%d,"errors_write":%d,"errors_status":%d,"errors_timeout":%d,'
         .. '"lat_mean_us":%.1f,"lat_max_us":%d,"p50_us":%d,"p90_us":%d,"p99_us":%d,"p999_us":%d}\n',
      summary.requests, summary.duration, summary.bytes, summary.requests / (summary.duration / 1e6),
      e.connect, e.read, e.write, e.status, e.timeout,
      latency.mean, latency.max, latency:percentile(50), latency:percentile(90), latency:percentile(99),
      latency:percentile(99.9)))
end
