# tag: postgres:15
# A stand-in for the official PostgreSQL image where Docker Hub cannot be reached: Debian's
# PostgreSQL 15, with the environment the official image reads (POSTGRES_USER, POSTGRES_DB,
# POSTGRES_PASSWORD or POSTGRES_PASSWORD_FILE) and its data folder.
FROM herald-base:bookworm
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql-15 \
 && rm -rf /var/lib/apt/lists/* \
 && mkdir -p /var/lib/postgresql/data /run/postgresql \
 && chown -R postgres:postgres /var/lib/postgresql /run/postgresql
COPY postgres-entrypoint.sh /usr/local/bin/docker-entrypoint.sh
ENV PGDATA=/var/lib/postgresql/data PATH=/usr/lib/postgresql/15/bin:$PATH
EXPOSE 5432
ENTRYPOINT ["docker-entrypoint.sh"]
CMD ["postgres"]
