#include "core/providers/socket_meter.h"

// Linux's own tcp_info, not glibc's older copy (which lacks tcpi_bytes_received):
// this file includes no other TCP header, so the two never meet.
#include <linux/tcp.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstddef>

namespace revline::providers {

std::optional<std::uint64_t> bytesReceived(int socket) {
  tcp_info info{};
  socklen_t length = sizeof info;
  if (socket < 0 || ::getsockopt(socket, IPPROTO_TCP, TCP_INFO, &info, &length) != 0) return std::nullopt;
  // A kernel older than the field (Linux 4.1) fills less of the struct.
  if (length < offsetof(tcp_info, tcpi_bytes_received) + sizeof info.tcpi_bytes_received) return std::nullopt;
  return info.tcpi_bytes_received;
}

}  // namespace revline::providers
