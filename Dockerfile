# Linkhop's container image (README "Docker"). Three stages:
#   deps     npm packages from the lockfile and the generated Prisma client (cached until
#            package.json, package-lock.json or the Prisma schema change)
#   build    `npm run build` (next build, server and admin CLI compiled into dist/), then only the
#            files the server and the admin CLI load are gathered into /out (scripts/container-files.mjs)
#   runtime  the base image, tini, a non-root user and /out: no compiler, no dev dependencies, no
#            tests, no Playwright
# The base image is an argument: `--build-arg NODE_IMAGE=...` builds from another Node.js 20.19+
# image on Debian (tests/container/ builds from one made locally).
ARG NODE_IMAGE=node:22-bookworm-slim

FROM ${NODE_IMAGE} AS deps
WORKDIR /app
ENV NEXT_TELEMETRY_DISABLED=1
# Behind a TLS-inspecting proxy, npm must trust its CA: mount the CA file into the build and name
# it, e.g. `podman build -v /path/ca.pem:/etc/ssl/build-ca.pem:ro --build-arg
# NODE_EXTRA_CA_CERTS=/etc/ssl/build-ca.pem .` (tests/container/ does so where the host has one).
# It is a build argument only: nothing of it stays in the image.
ARG NODE_EXTRA_CA_CERTS=
# What `npm install` and its postinstall (embedded PostgreSQL links, prisma generate) read.
COPY package.json package-lock.json prisma.config.ts ./
COPY scripts/postinstall.mjs scripts/
# package.json "overrides" puts this stub in place of @prisma/streams-local (see its index.js)
COPY scripts/stubs/ scripts/stubs/
COPY scripts/schema-engine/ scripts/schema-engine/
COPY lib/db/platform.mjs lib/db/
COPY prisma/schema.prisma prisma/
# `npm install`, not `npm ci`, as in .ci/run: the lockfile cannot list every platform's Next and
# Tailwind builds. With the lockfile present it installs the versions it pins.
RUN LINKHOP_SKIP_BUILD=1 npm install --no-audit --no-fund && npm cache clean --force

FROM deps AS build
# Lets the container test remove the build-stage images of its earlier runs (tests/container/).
LABEL org.linkhop.stage=build
COPY . .
RUN npm run build && node scripts/container-files.mjs /out

FROM ${NODE_IMAGE} AS runtime
# tini as PID 1: passes SIGTERM on to Node (graceful shutdown) and reaps orphaned processes.
RUN if ! command -v tini >/dev/null; then \
      apt-get update && apt-get install -y --no-install-recommends tini && rm -rf /var/lib/apt/lists/*; \
    fi \
 && useradd --system --uid 10001 --user-group --home-dir /app --shell /usr/sbin/nologin linkhop \
 && mkdir -p /data && chown linkhop:linkhop /data \
 && printf '#!/bin/sh\nexec node --enable-source-maps /app/dist/admin.js "$@"\n' > /usr/local/bin/linkhop-admin \
 && chmod 755 /usr/local/bin/linkhop-admin
WORKDIR /app
COPY --from=build /out/ /app/
# The only place under /app the server writes (Next's image and fetch caches).
RUN mkdir -p .next/cache && chown linkhop:linkhop .next/cache
ENV NODE_ENV=production \
    NEXT_TELEMETRY_DISABLED=1 \
    PORT=3000 \
    LINKHOP_DATA_DIR=/data
# The embedded PostgreSQL (no DATABASE_URL) keeps its files here, as do the generated AUTH_SECRET
# and backups you write there.
VOLUME ["/data"]
USER linkhop
EXPOSE 3000
# Liveness only (no database work): /readyz is for load balancers (README "Running in production").
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["tini", "--"]
# `npm start` without npm in between, and without its source-freshness check (the image has no sources).
CMD ["node", "--enable-source-maps", "dist/server.js"]
