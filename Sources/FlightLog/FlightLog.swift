// placeholder until generated
