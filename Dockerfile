# syntax=docker/dockerfile:1
# Inkwell: `docker build -t inkwell .` then `docker run -p 8080:8080 -v inkwell-data:/data inkwell`.
# The sources are TypeScript run through tsx (a runtime dependency), so there is no compile step:
# the build stage only installs production dependencies, compiling the native ones.

FROM node:20-bookworm-slim AS build
# better-sqlite3 compiles from source when no prebuilt binary matches.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim
# tini as PID 1 forwards SIGTERM to `inkwell serve` (which lets in-flight requests finish) and
# reaps tracer and renderer worker processes should the server itself die.
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY package.json package-lock.json ./
COPY bin ./bin
COPY src ./src
# Code stays owned by root (read-only to the server); only /data is the server's to write.
RUN ln -s /app/bin/inkwell.js /usr/local/bin/inkwell \
 && mkdir -p /data \
 && chown node:node /data
ENV INKWELL_HOST=0.0.0.0 \
    INKWELL_PORT=8080 \
    INKWELL_DATA_DIR=/data
USER node
VOLUME ["/data"]
EXPOSE 8080
# Liveness only; orchestrators that route traffic should also watch GET /readyz (database, Redis).
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.INKWELL_PORT||8080)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["inkwell", "serve"]
