"""A TCP relay that holds every chunk from the service for a while before passing it on:
a slow link between labgate's processes. Prints nothing; writes its port to argv[3].

    python3 slow_link.py TARGET_PORT DELAY_SECONDS PORT_FILE
"""
import asyncio
import os
import sys

target_port, delay, port_file = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]


async def relay(reader, writer, hold):
    try:
        while data := await reader.read(65536):
            if hold:
                await asyncio.sleep(hold)
            writer.write(data)
            await writer.drain()
    except ConnectionError:
        pass
    finally:
        writer.close()


async def connection(client_reader, client_writer):
    service_reader, service_writer = await asyncio.open_connection("127.0.0.1", target_port)
    await asyncio.gather(relay(client_reader, service_writer, 0),
                         relay(service_reader, client_writer, delay))


async def main():
    server = await asyncio.start_server(connection, "127.0.0.1", 0)
    with open(port_file + ".tmp", "w") as out:
        out.write(str(server.sockets[0].getsockname()[1]))
    os.replace(port_file + ".tmp", port_file)
    await server.serve_forever()


asyncio.run(main())
