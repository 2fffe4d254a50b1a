#!/usr/bin/python3
"""A lab script that drives labgate over gRPC, as any program on the lab network may:
it opens a port under a Lease, queries the instrument, records each exchange into a
session, and watches that session. Run with Debian's python3-grpcio and
python3-protobuf, after generate_stubs.sh:

  ./generate_stubs.sh stubs
  PYTHONPATH=stubs /usr/bin/python3 lab_script.py --serial HOST:PORT --session HOST:PORT \
      --token-file lab-script.token

labgate-serial knows the script by its token: start it with --client-token-file FILE, a
line "NAME TOKEN" per client. Without a token the script is "anonymous".
"""
import argparse
import queue
import sys
import threading
import time

import grpc

from labgate.serial.v1 import serial_pb2, serial_pb2_grpc
from labgate.session.v1 import session_pb2, session_pb2_grpc


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--serial", required=True, help="labgate-serial HOST:PORT")
    parser.add_argument("--session", required=True, help="labgate-session HOST:PORT")
    parser.add_argument("--port", default="loop://python-example", help="serial port to open")
    parser.add_argument("--token-file", help="file whose first line is this client's token")
    parser.add_argument("--queries", type=int, default=3)
    args = parser.parse_args()

    serial = serial_pb2_grpc.SerialServiceStub(grpc.insecure_channel(args.serial))
    sessions = session_pb2_grpc.SessionServiceStub(grpc.insecure_channel(args.session))
    # Every serial call presents the token; the ports it opens belong to the principal the
    # service names for it. A client may not name another owner.
    credentials = ()
    if args.token_file:
        with open(args.token_file) as token_file:
            credentials = (("authorization", "Bearer " + token_file.readline().strip()),)

    # The Lease holds the owner's ports open for as long as this stream lives; if the
    # script dies, the service closes them.
    lease = serial.Lease(serial_pb2.LeaseRequest(), metadata=credentials)
    print("lease held by", next(lease).owner, flush=True)

    session = sessions.CreateSession(
        session_pb2.CreateSessionRequest(device_id="python-example", port_name=args.port),
        timeout=10).session
    print("session", session.id, flush=True)

    # Watch the session from another thread; each appended message arrives as an event.
    watched = queue.Queue()
    watch = sessions.WatchSession(session_pb2.WatchSessionRequest(session_id=session.id))

    def follow():
        try:
            for event in watch:
                if event.type == session_pb2.SessionEvent.TYPE_APPENDED:
                    watched.put(event.message.content)
        except grpc.RpcError as error:
            if error.code() != grpc.StatusCode.CANCELLED:
                watched.put(error)

    watcher = threading.Thread(target=follow, daemon=True)
    watcher.start()

    serial.OpenPort(serial_pb2.OpenPortRequest(port_name=args.port, baud_rate=115200),
                    metadata=credentials, timeout=10)
    print("opened", args.port, flush=True)
    for number in range(1, args.queries + 1):
        query = f"MEAS:VOLT? {number}\n"
        started = time.monotonic()
        serial.Write(serial_pb2.WriteRequest(port_name=args.port, data=query),
                     metadata=credentials, timeout=10)
        reply = serial.Read(serial_pb2.ReadRequest(port_name=args.port, timeout_ms=1000),
                            metadata=credentials, timeout=10)
        latency_ms = int((time.monotonic() - started) * 1000)
        for direction, content in (("tx", query), ("rx", reply.data)):
            sessions.AppendMessage(session_pb2.AppendMessageRequest(
                session_id=session.id, role="device", direction=direction, content=content,
                latency_ms=latency_ms), timeout=10)
        print(f"query {number}: sent {query.strip()!r}, got {reply.data.strip()!r}", flush=True)

    # Two messages per query, each seen by the watcher.
    seen = []
    deadline = time.monotonic() + 10
    while len(seen) < 2 * args.queries and time.monotonic() < deadline:
        try:
            item = watched.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            break
        if isinstance(item, Exception):
            raise item
        seen.append(item)
    print("watched", len(seen), "messages", flush=True)
    watch.cancel()

    serial.ClosePort(serial_pb2.ClosePortRequest(port_name=args.port), metadata=credentials,
                     timeout=10)
    lease.cancel()
    stored = sessions.ListMessages(session_pb2.ListMessagesRequest(session_id=session.id),
                                   timeout=10)
    print("session holds", stored.count, "messages", flush=True)
    return 0 if len(seen) == 2 * args.queries and stored.count == 2 * args.queries else 1


if __name__ == "__main__":
    sys.exit(main())
