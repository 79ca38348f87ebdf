# syntax=docker/dockerfile:1
# Build: compile the TypeScript once (the image runs plain JavaScript: no transpiler in memory).
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
ENV SKIP_EMBEDDED_SNAPSHOT=1
# better-sqlite3 (GeoPackage site files) is a native addon: built here when no prebuilt binary is fetched.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY data ./data
RUN npm run build

# Production dependencies only.
FROM node:20-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
ENV SKIP_EMBEDDED_SNAPSHOT=1
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
RUN npm ci --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim
ENV NODE_ENV=production PORT=8080
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json package-lock.json tsconfig.json ./
# Sources stay for the operator CLIs (npm run db:migrate, db:seed, keys) and the model artifact.
COPY src ./src
COPY data ./data
COPY sql ./sql
COPY schema ./schema
USER node
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+process.env.PORT+'/v1/health').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"
# Memory settings as in `npm run start:prod` (see docs/performance.md): glibc's malloc hands blocks of
# 128 KiB and more to the kernel and back (its sliding threshold otherwise grows the heap with every
# large answer), and V8's young generation and heap growth.
ENV MALLOC_MMAP_THRESHOLD_=131072
CMD ["node", "--max-semi-space-size=8", "--heap-growing-percent=50", "dist/src/wiring/main.js"]
