# syntax=docker/dockerfile:1
# svbench without a Rust toolchain: a two-stage build whose runtime image holds
# only the `svbench` binary (datasets, reward configs and analyzer rules are
# embedded in it) on a slim Debian base.
#
#   docker build -t svbench --build-arg GIT_SHA="$(git rev-parse HEAD)" .
#   docker run --rm svbench                        # eval e1 on the embedded data
#   mkdir -p outputs && docker run --rm --user "$(id -u):$(id -g)" \
#       -v "$PWD/outputs:/work/outputs" -e OPENAI_API_KEY \
#       svbench eval e1 --model gpt-4.1-mini -n 50
#
# Run directories land in /work/outputs inside the container; mount a host
# folder there to keep them (`--user` makes the files yours). The response
# cache lives in /work/.cache, which any user may write. The first build
# compiles every dependency (as long as a first `cargo build --release`, see
# the README's quick start).

FROM rust:1-slim-bookworm AS build
# The build context has no .git: the commit recorded in run metadata comes
# from this argument (empty: runs record no commit).
ARG GIT_SHA=""
WORKDIR /src
COPY . .
# BuildKit cache mounts keep the crate downloads and compiled dependencies
# between builds, so a rebuild after a source edit compiles only svbench.
# `-p svbench-cli` builds the binary and its dependencies, not the Python
# extension or the test-only crates.
RUN --mount=type=cache,target=/usr/local/cargo/registry \
    --mount=type=cache,target=/src/target \
    SVBENCH_BUILD_GIT_SHA="$GIT_SHA" cargo build --release --locked -p svbench-cli \
    && cp target/release/svbench /usr/local/bin/svbench

FROM debian:bookworm-slim
# TLS roots are compiled in (rustls with webpki roots); nothing else is needed
# at run time. It runs as a non-root user by default; /work is writable by
# any user so `docker run --user UID:GID` works too.
RUN useradd --no-create-home --home-dir /work svbench \
    && mkdir -m 1777 /work
COPY --from=build /usr/local/bin/svbench /usr/local/bin/svbench
ENV XDG_CACHE_HOME=/work/.cache
USER svbench
WORKDIR /work
ENTRYPOINT ["svbench"]
CMD ["eval", "e1"]
