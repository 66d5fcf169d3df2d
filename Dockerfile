# syntax=docker/dockerfile:1
# sqlgym's container image: the episode server on the embedded demo (or
# the datasets --dataset/SQLGYM_DATASET names), as a non-root user, with
# /data as its volume. scripts/image assembles the same image without
# Docker (internal/app/imagebuild); internal/app/imagebuild/dockerfile_test.go
# holds the final stage below and that image to the same settings.
#
#   docker build -t sqlgym .
#   docker run -p 8765:8765 -e SQLGYM_TOKEN=secret -v sqlgym-data:/data sqlgym
#   docker compose up            # with PostgreSQL as the trajectory store (compose.yaml)

FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod go mod download
COPY . .
ARG VERSION=dev
# A static binary: mattn/go-sqlite3 needs cgo, so the C parts link
# statically too; netgo and osusergo keep glibc's resolver and user
# lookup (which would need shared libraries) out of it.
RUN --mount=type=cache,target=/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
    CGO_ENABLED=1 go build -trimpath -tags netgo,osusergo \
      -ldflags "-s -w -X main.version=${VERSION} -linkmode external -extldflags -static" \
      -o /out/root/usr/local/bin/sqlgym ./cmd/sqlgym && \
    /out/root/usr/local/bin/sqlgym version && \
    mkdir -p /out/root/tmp /out/root/etc/ssl/certs /out/user/data && chmod 1777 /out/root/tmp && \
    cp /etc/ssl/certs/ca-certificates.crt /out/root/etc/ssl/certs/

FROM scratch
ARG VERSION=dev
LABEL org.opencontainers.image.title="sqlgym" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.source="https://github.com/sqlgym/sqlgym"
COPY internal/app/imagebuild/rootfs/etc/passwd internal/app/imagebuild/rootfs/etc/group /etc/
# /usr/local/bin/sqlgym, /etc/ssl/certs/ca-certificates.crt, /tmp (1777)
COPY --from=build /out/root/ /
# /data, the sqlgym user's
COPY --from=build --chown=65532:65532 /out/user/ /
ENV PATH=/usr/local/bin \
    SQLGYM_ADDR=0.0.0.0:8765 \
    SQLGYM_DATA_DIR=/data \
    SQLGYM_LOG_FORMAT=json
WORKDIR /data
VOLUME ["/data"]
USER 65532:65532
EXPOSE 8765/tcp
# /healthz answers once the server listens, which it does only after its
# datasets are loaded and its trajectory store is open: live and ready.
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 CMD ["sqlgym", "healthcheck"]
ENTRYPOINT ["sqlgym"]
# Not on a loopback address, serve refuses to start without a token:
# set SQLGYM_TOKEN (clients send it as a bearer token), or
# SQLGYM_INSECURE=true to serve without authentication.
CMD ["serve"]
