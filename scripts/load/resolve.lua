-- wrk script: POST a resolution request for an internal user.
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer " .. os.getenv("LOAD_TOKEN")
wrk.body = '{"user":{"userId":"u-1","userType":"internal-user","roles":["analyst"]},' ..
  '"customData":{"tier":"premium"},"account":{"accountId":"acct-1"},' ..
  '"request":{"region":"us-east-1"}}'
