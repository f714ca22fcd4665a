# Shared by the item2/3/11 serve repro scripts: start `$SVBENCH serve` on
# 127.0.0.1:0 under ulimit -v 6000000, timeout 120 and /usr/bin/time; find
# its URL and pid; stop it and print the RESULT line.
# Usage: start_server NAME [extra serve flags...]; ...; stop_server "extra text"
start_server() {
  ITEM=$1; shift
  : "${SVBENCH:?set SVBENCH to the svbench binary}"
  DIR=$(mktemp -d)
  ( ulimit -v 6000000; exec timeout 120 /usr/bin/time -f 'wall=%e s maxrss=%M KB exit=%x' -o "$DIR/time" \
      "$SVBENCH" serve --bind 127.0.0.1:0 "$@" > "$DIR/stdout" 2> "$DIR/stderr" ) &
  WRAPPER=$!
  URL=""
  for _ in $(seq 1 150); do
    URL=$(head -1 "$DIR/stdout" 2>/dev/null | grep -o 'http://[0-9.:]*' || true)
    [ -n "$URL" ] && break; sleep 0.2
  done
  if [ -z "$URL" ]; then
    echo "RESULT $ITEM server did not start"; tail -c 600 "$DIR/stderr"; kill "$WRAPPER" 2>/dev/null; exit 1
  fi
  # timeout -> time -> svbench
  PID=""
  for _ in $(seq 1 50); do
    t=$(pgrep -P "$WRAPPER" | head -1); [ -n "$t" ] && tm=$(pgrep -P "$t" | head -1)
    [ -n "${tm:-}" ] && PID=$(pgrep -P "$tm" | head -1)
    [ -n "$PID" ] && break; sleep 0.1
  done
  [ -n "$PID" ] || PID=$(pgrep -n -f "serve --bind 127.0.0.1:0")
  for _ in $(seq 1 150); do
    [ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "$URL/readyz")" = 200 ] && break; sleep 0.2
  done
  export URL PID DIR
}

hwm() { awk '/VmHWM/{print $2}' /proc/"$PID"/status 2>/dev/null || echo "?"; }
alive() { kill -0 "$PID" 2>/dev/null && echo yes || echo no; }

stop_server() {
  local h a
  h=$(hwm); a=$(alive)
  kill "$PID" 2>/dev/null; wait "$WRAPPER" 2>/dev/null
  echo "RESULT $ITEM survived=$a VmHWM=${h}kB $(tail -1 "$DIR/time" 2>/dev/null) $*"
  echo "server stderr (tail):"; tail -c 400 "$DIR/stderr"; echo
  rm -rf "$DIR"
}
