-- wrk script: authenticated GET.
wrk.headers["Authorization"] = "Bearer " .. os.getenv("LOAD_TOKEN")
