// HTTP/2 keepalive between labgate's processes. A peer whose host vanished without closing its
// connection (power lost, a cable pulled, a VM frozen) would otherwise keep its streams for ever:
// labgate-serial would keep a gone gateway's Lease, and so its ports, and the gateway would wait
// on a bench that is no longer there. Each side pings the other and drops a link whose ping goes
// unanswered.
#pragma once

#include <grpcpp/server_builder.h>
#include <grpcpp/support/channel_arguments.h>

#include <chrono>

namespace labgate {

struct GrpcKeepalive {
  std::chrono::milliseconds time{20000};     // a ping after this long without one
  std::chrono::milliseconds timeout{10000};  // the link is dropped if its answer takes longer
};

// A client pings every `time`, with or without calls in flight.
void SetClientKeepalive(grpc::ChannelArguments& args, const GrpcKeepalive& keepalive = {});
// A server pings every `time`, and lets clients ping as often as every `time` / 2 (a client that
// pings more often is told to stop, as gRPC does).
void SetServerKeepalive(grpc::ServerBuilder& builder, const GrpcKeepalive& keepalive = {});

}  // namespace labgate
