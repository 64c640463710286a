// The C surface of rabbitmq-c that Swift can call directly, plus wrappers for the
// variadic functions Swift cannot import. Only Shared/Messaging imports this module.
#ifndef HERALD_CRABBITMQ_SHIM_H
#define HERALD_CRABBITMQ_SHIM_H

#if __has_include(<rabbitmq-c/amqp.h>)
#include <rabbitmq-c/amqp.h>
#include <rabbitmq-c/framing.h>
#include <rabbitmq-c/tcp_socket.h>
#include <rabbitmq-c/ssl_socket.h>
#else
#include <amqp.h>
#include <amqp_framing.h>
#include <amqp_tcp_socket.h>
#include <amqp_ssl_socket.h>
#endif

#include <poll.h>
#include <sys/eventfd.h>

/// `amqp_login_with_properties` with the PLAIN mechanism (the original is variadic).
static inline amqp_rpc_reply_t herald_amqp_login_plain(
    amqp_connection_state_t state, const char *vhost, int channel_max, int frame_max,
    int heartbeat, const amqp_table_t *client_properties, const char *user,
    const char *password) {
    return amqp_login_with_properties(state, vhost, channel_max, frame_max, heartbeat,
                                      client_properties, AMQP_SASL_METHOD_PLAIN, user,
                                      password);
}

/// Trusts the system's CA store on an `amqps` socket given no CA file: rabbitmq-c's own
/// context trusts nothing until told.
/// (OpenSSL's one function declared here, as its header does, rather than importing all of it.)
struct ssl_ctx_st;
int SSL_CTX_set_default_verify_paths(struct ssl_ctx_st *ctx);
static inline int herald_amqp_ssl_trust_system_store(amqp_socket_t *socket) {
    return SSL_CTX_set_default_verify_paths((struct ssl_ctx_st *)amqp_ssl_socket_get_context(socket));
}

#endif
