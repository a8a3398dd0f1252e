/*
 * curl_floor.c: the least a program that uses Debian's libcurl can be resident (item 5), and the
 * least time it takes to start (item 3's suite, through spawn_floor).
 *
 *   curl_floor
 *
 * Linked with Debian's libcurl as ock-orchestrator is (dynamically, same flags), it only
 * initialises libcurl and cleans it up again, as the reference does before and after its
 * work. Its peak RSS, read by bench/measure, is the floor under the reference's: loading and
 * relocating libcurl and the 30-odd libraries it pulls in (OpenSSL, GnuTLS, Kerberos, LDAP,
 * libssh2, ...), and curl_global_init, which initialises OpenSSL among them. Exit status 0,
 * or 1 when curl_global_init fails.
 */
#include <stdio.h>

#include <curl/curl.h>

int main(void) {
  if (curl_global_init(CURL_GLOBAL_DEFAULT)) {
    fprintf(stderr, "curl_floor: curl_global_init failed\n");
    return 1;
  }
  curl_global_cleanup();
  return 0;
}
