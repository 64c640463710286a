/*
 * The raw rabbitmq-c baseline for Herald's messaging benchmark: one publisher (publisher
 * confirms, windows of WINDOW messages) and one consumer (manual acks, prefetch PREFETCH),
 * each on its own connection and thread, moving N persistent SIZE-byte messages through a
 * quorum queue. Prints one JSON line. Measured exactly like herald-messaging-bench.
 *
 *   raw-bench [messages] [queue] [host] [port]
 */
#include <amqp.h>
#include <amqp_framing.h>
#include <amqp_tcp_socket.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { SIZE = 500, WINDOW = 1000, PREFETCH = 500 };

static long total = 100000;
static const char *queue = "bench.raw";
static const char *host = "127.0.0.1";
static int port = 5672;

static void die_reply(amqp_rpc_reply_t r, const char *what) {
    if (r.reply_type == AMQP_RESPONSE_NORMAL) return;
    fprintf(stderr, "%s failed (reply type %d, library error %s)\n", what, r.reply_type,
            amqp_error_string2(r.library_error));
    exit(1);
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static amqp_connection_state_t open_connection(void) {
    amqp_connection_state_t c = amqp_new_connection();
    amqp_socket_t *s = amqp_tcp_socket_new(c);
    if (!s || amqp_socket_open(s, host, port) != AMQP_STATUS_OK) { fprintf(stderr, "cannot connect\n"); exit(1); }
    die_reply(amqp_login(c, "/", 0, 131072, 0, AMQP_SASL_METHOD_PLAIN, "guest", "guest"), "login");
    amqp_channel_open(c, 1);
    die_reply(amqp_get_rpc_reply(c), "channel.open");
    return c;
}

static void *consume(void *arg) {
    double *end = arg;
    amqp_connection_state_t c = open_connection();
    amqp_basic_qos(c, 1, 0, PREFETCH, 0);
    die_reply(amqp_get_rpc_reply(c), "basic.qos");
    amqp_basic_consume(c, 1, amqp_cstring_bytes(queue), amqp_empty_bytes, 0, 0, 0, amqp_empty_table);
    die_reply(amqp_get_rpc_reply(c), "basic.consume");
    for (long received = 0; received < total;) {
        amqp_envelope_t env;
        amqp_maybe_release_buffers(c);
        amqp_rpc_reply_t r = amqp_consume_message(c, &env, NULL, 0);
        if (r.reply_type != AMQP_RESPONSE_NORMAL) {
            if (r.reply_type == AMQP_RESPONSE_LIBRARY_EXCEPTION && r.library_error == AMQP_STATUS_UNEXPECTED_STATE) {
                amqp_frame_t frame;
                amqp_simple_wait_frame(c, &frame);
                continue;
            }
            die_reply(r, "consume");
        }
        amqp_basic_ack(c, 1, env.delivery_tag, 0);
        amqp_destroy_envelope(&env);
        received++;
    }
    *end = now();
    amqp_connection_close(c, AMQP_REPLY_SUCCESS);
    amqp_destroy_connection(c);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc > 1) total = atol(argv[1]);
    if (argc > 2) queue = argv[2];
    if (argc > 3) host = argv[3];
    if (argc > 4) port = atoi(argv[4]);

    amqp_connection_state_t c = open_connection();
    amqp_table_entry_t arg;
    arg.key = amqp_cstring_bytes("x-queue-type");
    arg.value.kind = AMQP_FIELD_KIND_UTF8;
    arg.value.value.bytes = amqp_cstring_bytes("quorum");
    amqp_table_t args = {1, &arg};
    amqp_queue_declare(c, 1, amqp_cstring_bytes(queue), 0, 1, 0, 0, args);
    die_reply(amqp_get_rpc_reply(c), "queue.declare");
    amqp_queue_purge(c, 1, amqp_cstring_bytes(queue));
    die_reply(amqp_get_rpc_reply(c), "queue.purge");
    amqp_confirm_select(c, 1);
    die_reply(amqp_get_rpc_reply(c), "confirm.select");

    char body[SIZE];
    memset(body, 'x', sizeof body);
    amqp_basic_properties_t props;
    props._flags = AMQP_BASIC_CONTENT_TYPE_FLAG | AMQP_BASIC_DELIVERY_MODE_FLAG;
    props.content_type = amqp_cstring_bytes("application/octet-stream");
    props.delivery_mode = 2;
    amqp_bytes_t payload = {SIZE, body};
    unsigned char *confirmed = calloc(total + 1, 1);

    double end = 0;
    pthread_t consumer;
    double start = now();
    pthread_create(&consumer, NULL, consume, &end);

    long sent = 0, acked = 0;
    while (sent < total) {
        long window_end = sent + WINDOW < total ? sent + WINDOW : total;
        for (; sent < window_end; sent++) {
            if (amqp_basic_publish(c, 1, amqp_empty_bytes, amqp_cstring_bytes(queue), 0, 0, &props, payload) != AMQP_STATUS_OK) {
                fprintf(stderr, "publish failed\n");
                return 1;
            }
        }
        while (acked < sent) {
            amqp_frame_t frame;
            if (amqp_simple_wait_frame(c, &frame) != AMQP_STATUS_OK) { fprintf(stderr, "wait failed\n"); return 1; }
            if (frame.frame_type != AMQP_FRAME_METHOD) continue;
            if (frame.payload.method.id == AMQP_BASIC_ACK_METHOD) {
                amqp_basic_ack_t *ack = frame.payload.method.decoded;
                long first = ack->multiple ? 1 : (long)ack->delivery_tag;
                for (long tag = (long)ack->delivery_tag; tag >= first; tag--) {
                    if (confirmed[tag]) { if (ack->multiple) break; else continue; }
                    confirmed[tag] = 1;
                    acked++;
                }
            } else if (frame.payload.method.id == AMQP_BASIC_NACK_METHOD) {
                fprintf(stderr, "broker nacked a message\n");
                return 1;
            }
            amqp_maybe_release_buffers(c);
        }
    }
    pthread_join(consumer, NULL);
    double seconds = end - start;
    printf("{\"impl\":\"raw-c\",\"messages\":%ld,\"bytes\":%d,\"seconds\":%.3f,\"msgPerSec\":%.0f}\n",
           total, SIZE, seconds, total / seconds);
    amqp_queue_delete(c, 1, amqp_cstring_bytes(queue), 0, 0);
    amqp_connection_close(c, AMQP_REPLY_SUCCESS);
    amqp_destroy_connection(c);
    free(confirmed);
    return 0;
}
