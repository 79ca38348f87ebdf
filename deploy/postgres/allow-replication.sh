#!/bin/sh
# Run once by the postgres image when it initialises the primary's data directory: lets the
# `postgres-replica` service (docker compose --profile replica) stream from it with a password.
set -eu
echo "host replication all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
