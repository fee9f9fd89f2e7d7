# syntax=docker/dockerfile:1
# Inkwell: `docker build -t inkwell .`, then
#   docker run -d --name inkwell -p 127.0.0.1:8080:8080 -v inkwell-data:/data \
#     --add-host=host.docker.internal:host-gateway \
#     -e INKWELL_UPSTREAM_BASE_URL=http://host.docker.internal:11434/v1 inkwell
# (the model server: Ollama on the Docker host here; `-p 8080:8080` would publish on every interface).
# The build stage installs every dependency (TypeScript among them), compiles src/ into dist/ and
# then drops the dev dependencies; the runtime stage takes dist/ (code and pages), bin/ and the
# production node_modules, and no TypeScript source.

FROM node:24-bookworm-slim AS build
# better-sqlite3 compiles from source when no prebuilt binary matches.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
# Dependencies before the sources, so that a source change does not recompile better-sqlite3.
# --ignore-scripts holds back the package's own prepare (the build, which needs the sources);
# npm rebuild then runs the dependencies' install scripts.
RUN npm ci --ignore-scripts --no-audit --no-fund \
 && npm rebuild
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/build.mjs ./scripts/
COPY bin ./bin
COPY src ./src
RUN npm run build \
 && npm prune --omit=dev --no-audit --no-fund

FROM node:24-bookworm-slim
# tini as PID 1 forwards SIGTERM to `inkwell serve` (which lets in-flight requests finish) and
# reaps tracer and renderer worker processes should the server itself die.
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json package-lock.json ./
COPY bin ./bin
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
# On the metrics port when one is set: a busy API port's accept queue cannot delay it there.
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "const e=process.env,m=Number(e.INKWELL_METRICS_PORT);fetch('http://127.0.0.1:'+(m>0?m:(e.INKWELL_PORT||8080))+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["inkwell", "serve"]
